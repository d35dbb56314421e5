"""Model links: wrappers that add a loss around a predictor."""
from chainlet.links.model.classifier import Classifier  # noqa: F401
