"""Caffe's protocol-buffer messages (:mod:`.caffe_pb2`), at Chainer's module path.

``from chainlet.links.caffe.protobuf3 import caffe_pb2`` needs the optional ``protobuf``
package (``pip install "chainlet-dl[caffe]"``); importing this package alone does not.
"""
