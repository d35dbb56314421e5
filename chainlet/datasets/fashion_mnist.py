"""Chainer's module path for Fashion-MNIST (chainlet loads it next to MNIST, in ``mnist``)."""
from chainlet.datasets.mnist import get_fashion_mnist, get_fashion_mnist_labels  # noqa: F401
