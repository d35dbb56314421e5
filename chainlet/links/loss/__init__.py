"""Links that compute a loss with learned parameters: CRF1d."""
from chainlet.links.loss.crf1d import CRF1d  # noqa: F401
