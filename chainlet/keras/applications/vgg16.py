"""``keras.applications.vgg16``: :func:`VGG16` and its preprocessing."""
from chainlet.keras.applications.vgg import VGG16, decode_predictions, preprocess_input  # noqa
