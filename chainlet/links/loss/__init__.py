"""Links that compute a loss with learned parameters: CRF1d, NegativeSampling, BlackOut,
BinaryHierarchicalSoftmax."""
from chainlet.links.loss.black_out import BlackOut  # noqa: F401
from chainlet.links.loss.crf1d import CRF1d  # noqa: F401
from chainlet.links.loss.hierarchical_softmax import BinaryHierarchicalSoftmax  # noqa: F401
from chainlet.links.loss.negative_sampling import NegativeSampling  # noqa: F401
