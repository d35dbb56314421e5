"""Chainer's ``chainer.serializer`` module: the serializer base classes (defined in
:mod:`chainlet.serializers`)."""
from chainlet.serializers._base import (  # noqa: F401
    AbstractSerializer, Deserializer, Serializer)
