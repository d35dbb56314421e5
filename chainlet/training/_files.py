"""Atomic file writes of the extensions that write into the trainer's output folder.

They are the project-wide helper of :mod:`chainlet._atomic` under the names the training
extensions use: a file is written under a hidden temporary name in the same folder, flushed to
disk and renamed over the target, so readers see either the old file or the complete new one,
also when the process dies in the middle of a write; leftovers of killed writers are removed by
the next save of the same file.
"""
from __future__ import annotations

from chainlet._atomic import atomic_path as atomic_write_path
from chainlet._atomic import is_temp_name, temp_name
from chainlet._atomic import write_text as write_text_atomic

__all__ = ['atomic_write_path', 'is_temp_name', 'temp_name', 'write_text_atomic']
