"""``Trainer``: the training half of ``Model`` (compile, fit, evaluate, predict)."""
from __future__ import annotations


class Trainer:
    """Mixin giving ``Model`` its training methods."""

    def __init__(self) -> None:
        self.__dict__['_compiled'] = False
