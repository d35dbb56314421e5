"""Exporters of computational graphs to other frameworks' formats (Chainer's
``chainer.exporters``): :mod:`chainlet.exporters.caffe`."""
from chainlet.exporters import caffe  # noqa: F401
