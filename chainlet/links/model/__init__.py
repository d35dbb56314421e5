"""Model links: :class:`Classifier` (a loss around a predictor) and the image-recognition
networks of :mod:`chainlet.links.model.vision` (VGG16/19, GoogLeNet,
ResNet-50/101/152)."""
from chainlet.links.model.classifier import Classifier  # noqa: F401
from chainlet.links.model.vision.googlenet import GoogLeNet  # noqa: F401
from chainlet.links.model.vision.resnet import (  # noqa: F401
    ResNet50Layers, ResNet101Layers, ResNet152Layers)
from chainlet.links.model.vision.vgg import VGG16Layers, VGG19Layers  # noqa: F401
