"""Public functions of this family, re-exported by ``chainlet.functions``."""
from chainlet.functions.loss.contrastive import contrastive  # noqa: F401
from chainlet.functions.loss.ctc import connectionist_temporal_classification  # noqa: F401
from chainlet.functions.loss.hinge import hinge  # noqa: F401
from chainlet.functions.loss.huber_loss import huber_loss  # noqa: F401
from chainlet.functions.loss.mean_absolute_error import mean_absolute_error  # noqa: F401
from chainlet.functions.loss.mean_squared_error import mean_squared_error  # noqa: F401
from chainlet.functions.loss.sigmoid_cross_entropy import sigmoid_cross_entropy  # noqa: F401
from chainlet.functions.loss.softmax_cross_entropy import softmax_cross_entropy  # noqa: F401
from chainlet.functions.loss.triplet import triplet  # noqa: F401
from chainlet.functions.loss.vae import (  # noqa: F401
    bernoulli_nll, gaussian_kl_divergence, gaussian_nll)
from chainlet.functions.loss.cross_covariance import cross_covariance  # noqa: F401
from chainlet.functions.loss.decov import decov  # noqa: F401
from chainlet.functions.loss.discriminative_loss import (  # noqa: F401
    discriminative_margin_based_clustering_loss)
from chainlet.functions.loss.crf1d import argmax_crf1d, crf1d  # noqa: F401
from chainlet.functions.loss.black_out import black_out  # noqa: F401
from chainlet.functions.loss.negative_sampling import negative_sampling  # noqa: F401
