"""Image-recognition models with Chainer's layer names: VGG16/19 (:mod:`.vgg`),
GoogLeNet (:mod:`.googlenet`) and ResNet-50/101/152 (:mod:`.resnet`).

Built with ``pretrained_model=None`` they start from random weights; a path to an ``.npz``
file (saved from the same Chainer or chainlet model with ``save_npz``) loads trained ones, and
``'auto'`` looks for that file in ``<dataset root>/pfnet/chainer/models`` (no download).
"""
