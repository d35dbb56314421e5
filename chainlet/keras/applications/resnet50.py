"""``keras.applications.resnet50``: :func:`ResNet50` and its preprocessing."""
from chainlet.keras.applications.resnet import (  # noqa: F401
    ResNet50, decode_predictions, preprocess_input)
