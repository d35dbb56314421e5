"""``LogReport``: accumulate observations and write their means to a JSON log file.

Example:
    >>> from chainlet.training import extensions
    >>> log = extensions.LogReport(keys=['main/loss'], trigger=(1, 'epoch'))
    >>> log.log
    []
    >>> in_memory = extensions.LogReport(log_name=None)  # writes no file
"""
from __future__ import annotations

import json
import os
import warnings
from typing import Any, Callable, Optional, Sequence

from chainlet import reporter as reporter_module
from chainlet.training import extension
from chainlet.training import util
from chainlet.training._files import write_text_atomic


def _is_serializer(serializer: Any) -> bool:
    from chainlet.serializers import Serializer
    return isinstance(serializer, Serializer)


class LogReport(extension.Extension):
    """Average the observations over an interval and append the means to a log.

    Called every iteration (its own ``trigger`` decides when an interval ends). When also
    called before training (``trainer.extend(..., call_before_training=True)``), that call
    logs an entry of its own at iteration 0, as in Chainer. At the end of each interval the
    means of the observed scalars are stored in a dict together with ``epoch``,
    ``iteration`` and ``elapsed_time``, appended to :attr:`log` and written as a JSON list to
    ``<trainer.out>/<filename>``. The file is replaced atomically (written to a temporary file
    in the same folder, flushed, then renamed), so it is always a complete log, also when the
    process is killed while writing.

    Args:
        keys: Observation keys to record; ``None`` records every scalar.
        trigger: The interval (default ``(1, 'epoch')``).
        postprocess: Called as ``postprocess(entry)`` on each entry before it is stored; it
            may add or change values.
        filename: Name of the log file in the output folder. It may contain
            ``{iteration}``-style fields filled from the entry. ``None`` (the default) means
            the older keyword ``log_name``, whose default is ``'log'``; so, as in Chainer 7.8.1,
            ``filename=None`` alone still writes ``log``, and ``log_name=None`` (with no
            ``filename``) writes no file and keeps the log in memory only.
        write_trigger: When to write the file (default ``(1, 'iteration')``: whenever an
            entry was added). The file is written only when it fires and entries were added
            since the last write, so a coarse write trigger saves disk traffic on long logs.
    """

    def __init__(self, keys: Optional[Sequence[str]] = None, trigger: Any = (1, 'epoch'),
                 postprocess: Optional[Callable[[dict], Any]] = None,
                 filename: Optional[str] = None, write_trigger: Any = (1, 'iteration'),
                 **kwargs: Any) -> None:
        # Chainer 7.8.1's resolution: ``filename`` wins; when it is None the older keyword
        # ``log_name`` (default 'log') decides, so only ``log_name=None`` disables the file.
        log_name = kwargs.pop('log_name', 'log')
        if kwargs:
            raise TypeError(f'LogReport: unexpected keyword arguments {sorted(kwargs)}')
        if filename is None:
            filename = log_name
        self._keys = keys
        self._trigger = util.get_trigger(trigger)
        self._write_trigger = util.get_trigger(write_trigger)
        self._unwritten = False
        self._postprocess = postprocess
        self._log: list = []
        self._log_name = filename
        self._init_summary()

    def _init_summary(self) -> None:
        self._summary = reporter_module.DictSummary()

    def __call__(self, trainer: Any) -> None:
        """Add this iteration's observation; at the end of an interval, log the means."""
        observation = trainer.observation
        if self._keys is None:
            self._summary.add(observation)
        else:
            self._summary.add({k: observation[k] for k in self._keys if k in observation})
        # As Chainer: the call before training (``call_before_training=True`` on a fresh start)
        # logs its own entry, at iteration 0, instead of joining the first interval's means.
        if getattr(trainer, 'is_before_training', False) is True or self._trigger(trainer):
            self._add_entry(trainer)
        if self._unwritten and self._write_trigger(trainer):
            self._write(self._log[-1], trainer.out)
            self._unwritten = False

    def _add_entry(self, trainer: Any) -> None:
        entry = {name: float(value) for name, value in self._summary.compute_mean().items()}
        updater = trainer.updater
        entry['epoch'] = updater.epoch
        entry['iteration'] = updater.iteration
        entry['elapsed_time'] = trainer.elapsed_time
        if self._postprocess is not None:
            self._postprocess(entry)
        self._log.append(entry)
        self._unwritten = True
        self._init_summary()

    def _write(self, entry: dict, out: str) -> None:
        # The whole log is written; ``entry`` (the newest one) only fills the file name.
        if self._log_name is not None:
            path = os.path.join(out, self._log_name.format(**entry))
            write_text_atomic(path, json.dumps(self._log, indent=4))

    @property
    def log(self) -> list:
        """The entries logged so far (a list of dicts)."""
        return self._log

    def serialize(self, serializer: Any) -> None:
        """Save or load the interval trigger, the running summary and the log itself."""
        if hasattr(self._trigger, 'serialize'):
            self._trigger.serialize(serializer['_trigger'])
        try:
            self._summary.serialize(serializer['_summary'])
        except KeyError:
            warnings.warn('LogReport: the running statistics are not in the snapshot; they '
                          'start from zero', stacklevel=2)
        if _is_serializer(serializer):
            serializer('_log', json.dumps(self._log))
        else:
            self._log = json.loads(serializer('_log', '') or '[]')
