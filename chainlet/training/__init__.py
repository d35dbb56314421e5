"""The training framework: :class:`Trainer`, updaters, triggers and extensions.

A Chainer training script runs unchanged::

    updater = training.updaters.StandardUpdater(train_iter, optimizer)
    trainer = training.Trainer(updater, (20, 'epoch'), out='result')
    trainer.extend(extensions.Evaluator(test_iter, model))
    trainer.extend(extensions.LogReport())
    trainer.extend(extensions.PrintReport(['epoch', 'main/loss', 'validation/main/accuracy']))
    trainer.extend(extensions.snapshot(), trigger=(1, 'epoch'))
    trainer.run()

Example:
    >>> from chainlet import training
    >>> training.PRIORITY_WRITER > training.PRIORITY_EDITOR > training.PRIORITY_READER
    True
    >>> training.get_trigger((1, 'epoch'))
    IntervalTrigger(1, 'epoch')
"""
from __future__ import annotations

from chainlet.training import extension  # noqa: F401
from chainlet.training import extensions  # noqa: F401
from chainlet.training import trainer  # noqa: F401
from chainlet.training import trigger  # noqa: F401
from chainlet.training import triggers  # noqa: F401
from chainlet.training import updater  # noqa: F401
from chainlet.training import updaters  # noqa: F401
from chainlet.training import util  # noqa: F401
from chainlet.training.extension import Extension  # noqa: F401
from chainlet.training.extension import make_extension  # noqa: F401
from chainlet.training.extension import PRIORITY_EDITOR  # noqa: F401
from chainlet.training.extension import PRIORITY_READER  # noqa: F401
from chainlet.training.extension import PRIORITY_WRITER  # noqa: F401
from chainlet.training.trainer import Trainer  # noqa: F401
from chainlet.training.triggers import IntervalTrigger  # noqa: F401
from chainlet.training.updater import Updater  # noqa: F401
from chainlet.training.updaters import ParallelUpdater  # noqa: F401
from chainlet.training.updaters import StandardUpdater  # noqa: F401
from chainlet.training.util import get_trigger  # noqa: F401
