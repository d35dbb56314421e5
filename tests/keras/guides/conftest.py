"""Shared setup of the guide tests: each runs in its own temporary directory (the guides write
model files next to themselves) with a fixed seed."""
from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _guide_env(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    np.random.seed(0)
