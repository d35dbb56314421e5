"""The message classes built from chainlet's schema speak Caffe's wire format: the bytes of a
few messages are written out by hand from Caffe's field numbers and compared both ways."""
import pytest

pytest.importorskip('google.protobuf')

from google.protobuf import text_format  # noqa: E402

from chainlet.links.caffe.protobuf3 import _schema, caffe_pb2  # noqa: E402


def _varint(n):
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _key(number, wire):
    return _varint(number << 3 | wire)


def _string(number, text):
    data = text.encode()
    return _key(number, 2) + _varint(len(data)) + data


def _message(number, payload):
    return _key(number, 2) + _varint(len(payload)) + payload


def test_layer_with_convolution_and_blob_bytes():
    # LayerParameter: name 1, type 2, bottom 3, top 4, blobs 7, convolution_param 106;
    # ConvolutionParameter: num_output 1, kernel_size 4 (repeated), group 5;
    # BlobProto: shape 7 (BlobShape: dim 1, packed), data 5 (packed float).
    conv = _key(1, 0) + _varint(8) + _key(4, 0) + _varint(3) + _key(5, 0) + _varint(2)
    shape = _message(1, _varint(2) + _varint(1))
    blob = _message(5, b'\x00\x00\x80\x3f' * 2) + _message(7, shape)  # field order
    layer = (_string(1, 'conv1') + _string(2, 'Convolution') + _string(3, 'data')
             + _string(4, 'conv1') + _message(7, blob) + _message(106, conv))
    wire = _string(1, 'net') + _message(100, layer)

    net = caffe_pb2.NetParameter.FromString(wire)
    assert net.name == 'net'
    parsed = net.layer[0]
    assert (parsed.name, parsed.type, list(parsed.bottom)) == ('conv1', 'Convolution', ['data'])
    assert parsed.convolution_param.num_output == 8
    assert list(parsed.convolution_param.kernel_size) == [3]
    assert parsed.convolution_param.group == 2
    assert list(parsed.blobs[0].shape.dim) == [2, 1] and list(parsed.blobs[0].data) == [1, 1]
    assert net.SerializeToString() == wire


@pytest.mark.parametrize('field,number', [
    ('batch_norm_param', 139), ('concat_param', 104), ('dropout_param', 108),
    ('eltwise_param', 110), ('inner_product_param', 117), ('input_param', 143),
    ('lrn_param', 118), ('pooling_param', 121), ('power_param', 122), ('relu_param', 123),
    ('reshape_param', 133), ('scale_param', 142), ('sigmoid_param', 124),
    ('softmax_param', 125), ('slice_param', 126), ('tanh_param', 127), ('loss_param', 101),
    ('phase', 10),
])
def test_layer_parameter_field_numbers(field, number):
    assert caffe_pb2.LayerParameter.DESCRIPTOR.fields_by_name[field].number == number


def test_v1_layer_bytes():
    # V1LayerParameter: bottom 2, top 3, name 4, type 5 (enum; RELU = 18);
    # NetParameter.layers is field 2.
    layer = _string(2, 'a') + _string(3, 'b') + _string(4, 'relu') + _key(5, 0) + _varint(18)
    net = caffe_pb2.NetParameter.FromString(_message(2, layer))
    assert net.layers[0].type == caffe_pb2.V1LayerParameter.RELU == 18
    assert (net.layers[0].name, net.layers[0].bottom[0], net.layers[0].top[0]) == (
        'relu', 'a', 'b')


def test_defaults_are_caffes():
    layer = caffe_pb2.LayerParameter()
    assert layer.convolution_param.bias_term is True and layer.convolution_param.group == 1
    assert layer.pooling_param.stride == 1 and layer.pooling_param.pool == 0
    assert layer.lrn_param.local_size == 5 and layer.lrn_param.beta == 0.75
    assert layer.lrn_param.k == 1 and layer.dropout_param.dropout_ratio == 0.5
    assert layer.eltwise_param.operation == caffe_pb2.EltwiseParameter.SUM
    assert layer.batch_norm_param.moving_average_fraction == pytest.approx(0.999)
    assert layer.batch_norm_param.eps == pytest.approx(1e-5)
    assert layer.reshape_param.num_axes == -1 and layer.softmax_param.axis == 1
    assert caffe_pb2.NetState().phase == caffe_pb2.TEST == 1


def test_prototxt_text_parses():
    net = text_format.Parse('''
        name: "lenet"
        layer { name: "pool1" type: "Pooling" bottom: "conv1" top: "pool1"
                pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
    ''', caffe_pb2.NetParameter())
    assert net.layer[0].pooling_param.kernel_size == 2


def test_schema_is_consistent():
    descriptor = caffe_pb2.file_descriptor_proto()
    assert descriptor.package == 'caffe'
    assert {m.name for m in descriptor.message_type} == {n for n, _, _ in _schema.MESSAGES}
    for message in descriptor.message_type:
        numbers = [f.number for f in message.field]
        assert len(numbers) == len(set(numbers)), message.name
    assert _schema.v1_layer_types()['CONVOLUTION'] == 4


def test_phase_enum_as_generated_code():
    # protoc's caffe_pb2 (Chainer's) has the top-level enum ``Phase`` besides TRAIN and TEST.
    assert caffe_pb2.Phase.Name(caffe_pb2.TEST) == 'TEST'
    assert caffe_pb2.Phase.Value('TRAIN') == caffe_pb2.TRAIN == 0
    assert caffe_pb2.Phase.keys() == ['TRAIN', 'TEST'] and caffe_pb2.Phase.values() == [0, 1]
    assert caffe_pb2.Phase.DESCRIPTOR.full_name == 'caffe.Phase'
    assert 'Phase' in caffe_pb2.__all__
    state = caffe_pb2.NetState.FromString(caffe_pb2.NetState(phase='TRAIN').SerializeToString())
    assert state.phase == caffe_pb2.TRAIN
