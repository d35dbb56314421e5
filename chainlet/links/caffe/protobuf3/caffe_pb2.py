"""Caffe's message classes (``NetParameter``, ``LayerParameter``, ``BlobProto``, ...).

Chainer ships the module ``protoc`` generates from Caffe's ``caffe.proto`` under this name;
chainlet builds the same classes at import time instead, from the schema subset in
:mod:`._schema`: the table becomes a ``FileDescriptorProto`` in a private descriptor pool (so a
real ``caffe_pb2`` imported by the same program does not clash with it), and
``google.protobuf.message_factory`` makes the classes. Neither ``protoc`` nor generated code is
needed, only the ``protobuf`` package (``pip install "chainlet-dl[caffe]"``).

Module attributes are the message classes by name, the top-level enum ``Phase`` and its values
(``TRAIN``, ``TEST``); nested enum values are class attributes (``PoolingParameter.MAX``,
``V1LayerParameter.CONVOLUTION``). Without protobuf the module still imports, and using
any of these names raises ``ImportError`` saying what to install.

Example:
    >>> import pytest; _ = pytest.importorskip('google.protobuf')  # the example needs protobuf
    >>> from chainlet.links.caffe.protobuf3 import caffe_pb2
    >>> net = caffe_pb2.NetParameter(name='tiny')
    >>> layer = net.layer.add(name='relu1', type='ReLU', bottom=['data'], top=['relu1'])
    >>> caffe_pb2.NetParameter.FromString(net.SerializeToString()).layer[0].type
    'ReLU'
    >>> layer.pooling_param.pool == caffe_pb2.PoolingParameter.MAX, caffe_pb2.TEST
    (True, 1)
"""
from __future__ import annotations

import re
from typing import Any, Dict, Optional

from chainlet.links.caffe.protobuf3 import _schema

try:
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    from google.protobuf.internal import enum_type_wrapper
except ImportError as exc:  # protobuf is an optional extra
    _MISSING: Optional[ImportError] = exc
else:
    _MISSING = None

FILE_NAME = 'chainlet/links/caffe/caffe.proto'

_FIELD = re.compile(r'^(optional|repeated) (\w+) (\w+) = (\d+)((?: packed| default=\S+)*)$')
# Names of FieldDescriptorProto.Type values.
_SCALARS = {
    'double': 'TYPE_DOUBLE', 'float': 'TYPE_FLOAT', 'int32': 'TYPE_INT32',
    'int64': 'TYPE_INT64', 'uint32': 'TYPE_UINT32', 'uint64': 'TYPE_UINT64',
    'bool': 'TYPE_BOOL', 'string': 'TYPE_STRING', 'bytes': 'TYPE_BYTES',
}
_PUBLIC = ({name for name, _, _ in _schema.MESSAGES} | {name for name, _ in _schema.ENUMS}
           | {value for _, values in _schema.ENUMS for value, _ in values} | {'DESCRIPTOR'})


def _add_enum(container: Any, name: str, values: Any) -> None:
    enum = container.add(name=name)
    for value_name, number in values:
        enum.value.add(name=value_name, number=number)


def _add_field(message: Any, line: str, own_enums: set, top_enums: set) -> None:
    _F = descriptor_pb2.FieldDescriptorProto
    m = _FIELD.match(line)
    if m is None:
        raise ValueError(f'caffe schema: cannot read the field line {line!r}')
    label, type_name, name, number, options = m.groups()
    field = message.field.add(name=name, number=int(number), json_name=_json_name(name))
    field.label = _F.LABEL_OPTIONAL if label == 'optional' else _F.LABEL_REPEATED
    if type_name in _SCALARS:
        field.type = getattr(_F, _SCALARS[type_name])
    elif type_name in own_enums:
        field.type = _F.TYPE_ENUM
        field.type_name = f'.{_schema.PACKAGE}.{message.name}.{type_name}'
    elif type_name in top_enums:
        field.type = _F.TYPE_ENUM
        field.type_name = f'.{_schema.PACKAGE}.{type_name}'
    else:
        field.type = _F.TYPE_MESSAGE
        field.type_name = f'.{_schema.PACKAGE}.{type_name}'
    for option in options.split():
        if option == 'packed':
            field.options.packed = True
        else:
            field.default_value = option[len('default='):]


def _json_name(name: str) -> str:
    head, *rest = name.split('_')
    return head + ''.join(part.capitalize() for part in rest)


def file_descriptor_proto() -> Any:
    """The schema of :mod:`._schema` as a ``FileDescriptorProto`` (proto2, package caffe)."""
    fdp = descriptor_pb2.FileDescriptorProto(name=FILE_NAME, package=_schema.PACKAGE,
                                             syntax='proto2')
    top_enums = {name for name, _ in _schema.ENUMS}
    for name, values in _schema.ENUMS:
        _add_enum(fdp.enum_type, name, values)
    messages: Any = _schema.MESSAGES  # tuples of different lengths: one type for mypy
    for name, enums, fields in messages:
        message = fdp.message_type.add(name=name)
        for enum_name, values in enums:
            _add_enum(message.enum_type, enum_name, values)
        own = {enum_name for enum_name, _ in enums}
        for line in fields:
            _add_field(message, line, own, top_enums)
    return fdp


def _build() -> Dict[str, Any]:
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(file_descriptor_proto().SerializeToString())
    file = pool.FindFileByName(FILE_NAME)
    get_class = getattr(message_factory, 'GetMessageClass', None)
    if get_class is None:  # protobuf < 4.22
        get_class = message_factory.MessageFactory(pool).GetPrototype
    names: Dict[str, Any] = {}
    for name, desc in file.message_types_by_name.items():
        names[name] = get_class(desc)
    for enum in file.enum_types_by_name.values():
        # As generated code: the enum itself (``Phase.Name(1)``, ``Phase.keys()``) and its values.
        names[enum.name] = enum_type_wrapper.EnumTypeWrapper(enum)
        for value in enum.values:
            names[value.name] = value.number
    names['DESCRIPTOR'] = file
    return names


def __getattr__(name: str) -> Any:
    if _MISSING is not None and name in _PUBLIC:
        raise ImportError(f'caffe_pb2.{name}: reading and writing Caffe models needs the '
                          f'protobuf package: pip install "chainlet-dl[caffe]"') from _MISSING
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')


if _MISSING is None:
    globals().update(_build())
__all__ = sorted(_PUBLIC)
