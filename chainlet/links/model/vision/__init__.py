"""Image-recognition models with Chainer's layer names: VGG16/19 and ResNet-50/101/152.

Built with ``pretrained_model=None`` they start from random weights; a path to an ``.npz``
file (saved from the same Chainer or chainlet model with ``save_npz``) loads trained ones.
"""
