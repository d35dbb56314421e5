"""``keras.applications.vgg19``: :func:`VGG19` and its preprocessing."""
from chainlet.keras.applications.vgg import VGG19, decode_predictions, preprocess_input  # noqa
