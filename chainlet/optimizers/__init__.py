"""Optimizers with Chainer's names and defaults.

Example:
    >>> import numpy as np, chainlet
    >>> from chainlet import optimizers
    >>> link = chainlet.Link()
    >>> with link.init_scope():
    ...     link.w = chainlet.Parameter(np.ones(3, np.float32))
    >>> opt = optimizers.MomentumSGD(lr=0.1).setup(link)
    >>> link.w.grad = np.ones(3, np.float32)
    >>> opt.update()
    >>> link.w.array
    array([0.9, 0.9, 0.9], dtype=float32)
"""
from __future__ import annotations

from chainlet.optimizers.ada_delta import AdaDelta, AdaDeltaRule  # noqa: F401
from chainlet.optimizers.ada_grad import AdaGrad, AdaGradRule  # noqa: F401
from chainlet.optimizers.adam import (AdaBound, Adam, AdamRule, AdamW, AMSBound,  # noqa: F401
                                      AMSGrad)
from chainlet.optimizers.corrected_momentum_sgd import (  # noqa: F401
    CorrectedMomentumSGD, CorrectedMomentumSGDRule)
from chainlet.optimizers.momentum_sgd import MomentumSGD, MomentumSGDRule  # noqa: F401
from chainlet.optimizers.msvag import MSVAG, MSVAGRule  # noqa: F401
from chainlet.optimizers.nesterov_ag import NesterovAG, NesterovAGRule  # noqa: F401
from chainlet.optimizers.rmsprop import RMSprop, RMSpropRule  # noqa: F401
from chainlet.optimizers.rmsprop_graves import RMSpropGraves, RMSpropGravesRule  # noqa: F401
from chainlet.optimizers.sgd import SGD, SGDRule  # noqa: F401
from chainlet.optimizers.smorms3 import SMORMS3, SMORMS3Rule  # noqa: F401
