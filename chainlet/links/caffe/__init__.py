"""Caffe models in chainlet: :class:`CaffeFunction` runs a trained ``.caffemodel``.

Reading Caffe files needs the optional ``protobuf`` package (``pip install "chainlet-dl[caffe]"``);
this package imports without it, and :class:`CaffeFunction` raises ``ImportError`` saying so
when it is missing. The writer is :func:`chainlet.exporters.caffe.export`.
"""
from chainlet.links.caffe import protobuf3  # noqa: F401
from chainlet.links.caffe.caffe_function import CaffeFunction  # noqa: F401

__all__ = ['CaffeFunction']
