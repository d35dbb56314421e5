"""Loss functions.

As in Chainer, the attributes of this package are its modules: ``chainlet.functions.loss.X``
is the module that defines the function ``X`` and its FunctionNode classes. The functions are
re-exported by :mod:`chainlet.functions` (from ``_exports``).
"""
from chainlet.functions.loss import absolute_error  # noqa: F401
from chainlet.functions.loss import black_out  # noqa: F401
from chainlet.functions.loss import contrastive  # noqa: F401
from chainlet.functions.loss import crf1d  # noqa: F401
from chainlet.functions.loss import cross_covariance  # noqa: F401
from chainlet.functions.loss import ctc  # noqa: F401
from chainlet.functions.loss import decov  # noqa: F401
from chainlet.functions.loss import discriminative_loss  # noqa: F401
from chainlet.functions.loss import hinge  # noqa: F401
from chainlet.functions.loss import huber_loss  # noqa: F401
from chainlet.functions.loss import mean_absolute_error  # noqa: F401
from chainlet.functions.loss import mean_squared_error  # noqa: F401
from chainlet.functions.loss import negative_sampling  # noqa: F401
from chainlet.functions.loss import sigmoid_cross_entropy  # noqa: F401
from chainlet.functions.loss import softmax_cross_entropy  # noqa: F401
from chainlet.functions.loss import squared_error  # noqa: F401
from chainlet.functions.loss import triplet  # noqa: F401
from chainlet.functions.loss import vae  # noqa: F401
