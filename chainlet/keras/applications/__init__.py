"""``keras.applications``: ImageNet architectures with Keras's signatures and layer names.

``ResNet50/101/152``, ``ResNet50V2/101V2/152V2``, ``Xception``, ``VGG16/19``, ``MobileNetV2``,
``DenseNet121/169/201``, ``EfficientNetB0``-``B7``; each module (``resnet50``, ``resnet_v2``,
``xception``, ``vgg16``, ``mobilenet_v2``, ``densenet``, ``efficientnet``...) also has its
``preprocess_input`` and ``decode_predictions``. ``weights='imagenet'`` reads Keras's weight
file from ``~/.keras/models`` (nothing is downloaded); ``weights=<path>`` loads a file written
by ``save_weights`` or a Keras ``.h5`` weights file.

Example:
    >>> import numpy as np
    >>> from chainlet.keras import applications
    >>> model = applications.MobileNetV2(input_shape=(32, 32, 3), weights=None, classes=3)
    >>> model.predict(np.zeros((1, 32, 32, 3), np.float32), verbose=0).shape
    (1, 3)
"""
from chainlet.keras.applications import (  # noqa: F401
    densenet, efficientnet, imagenet_utils, mobilenet_v2, resnet, resnet50, resnet_v2, vgg16,
    vgg19, xception)
from chainlet.keras.applications.densenet import (  # noqa: F401
    DenseNet121, DenseNet169, DenseNet201)
from chainlet.keras.applications.mobilenet_v2 import MobileNetV2  # noqa: F401
from chainlet.keras.applications.resnet import ResNet50, ResNet101, ResNet152  # noqa: F401
from chainlet.keras.applications.resnet_v2 import (  # noqa: F401
    ResNet50V2, ResNet101V2, ResNet152V2)
from chainlet.keras.applications.vgg import VGG16, VGG19  # noqa: F401
from chainlet.keras.applications.xception import Xception  # noqa: F401
from chainlet.keras.applications.efficientnet import (  # noqa: F401
    EfficientNetB0, EfficientNetB1, EfficientNetB2, EfficientNetB3, EfficientNetB4,
    EfficientNetB5, EfficientNetB6, EfficientNetB7)
