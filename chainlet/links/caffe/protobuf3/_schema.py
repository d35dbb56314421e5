"""The part of Caffe's ``caffe.proto`` that chainlet reads and writes, as plain data.

Caffe stores a network (``.caffemodel``: binary; ``.prototxt``: text) as a ``NetParameter``
protocol-buffer message. The field names, numbers, types and defaults below are Caffe's public
schema (BVLC ``src/caffe/proto/caffe.proto``, ``syntax = "proto2"``, package ``caffe``),
restricted to the messages of the layers chainlet converts plus the messages they reference.
Fields outside this subset are not lost: protocol buffers keep unknown fields of a parsed
message, and nothing here needs them.

Each message is ``(name, enums, fields)``: ``enums`` are ``(enum name, ((value, number),
...))`` nested in the message, and each field is one line in the ``.proto`` syntax
``'<label> <type> <name> = <number>'``, optionally followed by ``packed`` and ``default=<value>``
(the value as ``.proto`` writes it). :mod:`.caffe_pb2` turns this table into a
``FileDescriptorProto`` and the message classes; this module imports nothing, so the layer
tables of :class:`~chainlet.links.caffe.CaffeFunction` can use it without protobuf installed.
"""
from __future__ import annotations

PACKAGE = 'caffe'

# Top-level enums.
ENUMS = (
    ('Phase', (('TRAIN', 0), ('TEST', 1))),
)

_ENGINE = ('Engine', (('DEFAULT', 0), ('CAFFE', 1), ('CUDNN', 2)))

MESSAGES = (
    ('BlobShape', (), (
        'repeated int64 dim = 1 packed',
    )),
    ('BlobProto', (), (
        'optional BlobShape shape = 7',
        'repeated float data = 5 packed',
        'repeated float diff = 6 packed',
        'repeated double double_data = 8 packed',
        'repeated double double_diff = 9 packed',
        'optional int32 num = 1 default=0',
        'optional int32 channels = 2 default=0',
        'optional int32 height = 3 default=0',
        'optional int32 width = 4 default=0',
    )),
    ('BlobProtoVector', (), (
        'repeated BlobProto blobs = 1',
    )),
    ('FillerParameter', (
        ('VarianceNorm', (('FAN_IN', 0), ('FAN_OUT', 1), ('AVERAGE', 2))),
    ), (
        'optional string type = 1 default=constant',
        'optional float value = 2 default=0',
        'optional float min = 3 default=0',
        'optional float max = 4 default=1',
        'optional float mean = 5 default=0',
        'optional float std = 6 default=1',
        'optional int32 sparse = 7 default=-1',
        'optional VarianceNorm variance_norm = 8 default=FAN_IN',
    )),
    ('NetParameter', (), (
        'optional string name = 1',
        'repeated string input = 3',
        'repeated BlobShape input_shape = 8',
        'repeated int32 input_dim = 4',
        'optional bool force_backward = 5 default=false',
        'optional NetState state = 6',
        'optional bool debug_info = 7 default=false',
        'repeated LayerParameter layer = 100',
        'repeated V1LayerParameter layers = 2',
    )),
    ('NetState', (), (
        'optional Phase phase = 1 default=TEST',
        'optional int32 level = 2 default=0',
        'repeated string stage = 3',
    )),
    ('NetStateRule', (), (
        'optional Phase phase = 1',
        'optional int32 min_level = 2',
        'optional int32 max_level = 3',
        'repeated string stage = 4',
        'repeated string not_stage = 5',
    )),
    ('ParamSpec', (
        ('DimCheckMode', (('STRICT', 0), ('PERMISSIVE', 1))),
    ), (
        'optional string name = 1',
        'optional DimCheckMode share_mode = 2',
        'optional float lr_mult = 3 default=1',
        'optional float decay_mult = 4 default=1',
    )),
    ('LayerParameter', (), (
        'optional string name = 1',
        'optional string type = 2',
        'repeated string bottom = 3',
        'repeated string top = 4',
        'optional Phase phase = 10',
        'repeated float loss_weight = 5',
        'repeated ParamSpec param = 6',
        'repeated BlobProto blobs = 7',
        'repeated bool propagate_down = 11',
        'repeated NetStateRule include = 8',
        'repeated NetStateRule exclude = 9',
        'optional LossParameter loss_param = 101',
        'optional BatchNormParameter batch_norm_param = 139',
        'optional ConcatParameter concat_param = 104',
        'optional ConvolutionParameter convolution_param = 106',
        'optional DropoutParameter dropout_param = 108',
        'optional EltwiseParameter eltwise_param = 110',
        'optional InnerProductParameter inner_product_param = 117',
        'optional InputParameter input_param = 143',
        'optional LRNParameter lrn_param = 118',
        'optional PoolingParameter pooling_param = 121',
        'optional PowerParameter power_param = 122',
        'optional ReLUParameter relu_param = 123',
        'optional ReshapeParameter reshape_param = 133',
        'optional ScaleParameter scale_param = 142',
        'optional SigmoidParameter sigmoid_param = 124',
        'optional SoftmaxParameter softmax_param = 125',
        'optional SliceParameter slice_param = 126',
        'optional TanHParameter tanh_param = 127',
    )),
    ('LossParameter', (
        ('NormalizationMode', (('FULL', 0), ('VALID', 1), ('BATCH_SIZE', 2), ('NONE', 3))),
    ), (
        'optional int32 ignore_label = 1',
        'optional NormalizationMode normalization = 3 default=VALID',
        'optional bool normalize = 2',
    )),
    ('BatchNormParameter', (), (
        'optional bool use_global_stats = 1',
        'optional float moving_average_fraction = 2 default=0.999',
        'optional float eps = 3 default=1e-5',
    )),
    ('ConcatParameter', (), (
        'optional int32 axis = 2 default=1',
        'optional uint32 concat_dim = 1 default=1',
    )),
    ('ConvolutionParameter', (
        _ENGINE,
    ), (
        'optional uint32 num_output = 1',
        'optional bool bias_term = 2 default=true',
        'repeated uint32 pad = 3',
        'repeated uint32 kernel_size = 4',
        'repeated uint32 stride = 6',
        'repeated uint32 dilation = 18',
        'optional uint32 pad_h = 9 default=0',
        'optional uint32 pad_w = 10 default=0',
        'optional uint32 kernel_h = 11',
        'optional uint32 kernel_w = 12',
        'optional uint32 stride_h = 13',
        'optional uint32 stride_w = 14',
        'optional uint32 group = 5 default=1',
        'optional FillerParameter weight_filler = 7',
        'optional FillerParameter bias_filler = 8',
        'optional Engine engine = 15 default=DEFAULT',
        'optional int32 axis = 16 default=1',
        'optional bool force_nd_im2col = 17 default=false',
    )),
    ('DropoutParameter', (), (
        'optional float dropout_ratio = 1 default=0.5',
    )),
    ('EltwiseParameter', (
        ('EltwiseOp', (('PROD', 0), ('SUM', 1), ('MAX', 2))),
    ), (
        'optional EltwiseOp operation = 1 default=SUM',
        'repeated float coeff = 2',
        'optional bool stable_prod_grad = 3 default=true',
    )),
    ('InnerProductParameter', (), (
        'optional uint32 num_output = 1',
        'optional bool bias_term = 2 default=true',
        'optional FillerParameter weight_filler = 3',
        'optional FillerParameter bias_filler = 4',
        'optional int32 axis = 5 default=1',
        'optional bool transpose = 6 default=false',
    )),
    ('InputParameter', (), (
        'repeated BlobShape shape = 1',
    )),
    ('LRNParameter', (
        ('NormRegion', (('ACROSS_CHANNELS', 0), ('WITHIN_CHANNEL', 1))),
        _ENGINE,
    ), (
        'optional uint32 local_size = 1 default=5',
        'optional float alpha = 2 default=1',
        'optional float beta = 3 default=0.75',
        'optional NormRegion norm_region = 4 default=ACROSS_CHANNELS',
        'optional float k = 5 default=1',
        'optional Engine engine = 6 default=DEFAULT',
    )),
    ('PoolingParameter', (
        ('PoolMethod', (('MAX', 0), ('AVE', 1), ('STOCHASTIC', 2))),
        _ENGINE,
        ('RoundMode', (('CEIL', 0), ('FLOOR', 1))),
    ), (
        'optional PoolMethod pool = 1 default=MAX',
        'optional uint32 pad = 4 default=0',
        'optional uint32 pad_h = 9 default=0',
        'optional uint32 pad_w = 10 default=0',
        'optional uint32 kernel_size = 2',
        'optional uint32 kernel_h = 5',
        'optional uint32 kernel_w = 6',
        'optional uint32 stride = 3 default=1',
        'optional uint32 stride_h = 7',
        'optional uint32 stride_w = 8',
        'optional Engine engine = 11 default=DEFAULT',
        'optional bool global_pooling = 12 default=false',
        'optional RoundMode round_mode = 13 default=CEIL',
    )),
    ('PowerParameter', (), (
        'optional float power = 1 default=1',
        'optional float scale = 2 default=1',
        'optional float shift = 3 default=0',
    )),
    ('ReLUParameter', (
        _ENGINE,
    ), (
        'optional float negative_slope = 1 default=0',
        'optional Engine engine = 2 default=DEFAULT',
    )),
    ('ReshapeParameter', (), (
        'optional BlobShape shape = 1',
        'optional int32 axis = 2 default=0',
        'optional int32 num_axes = 3 default=-1',
    )),
    ('ScaleParameter', (), (
        'optional int32 axis = 1 default=1',
        'optional int32 num_axes = 2 default=1',
        'optional FillerParameter filler = 3',
        'optional bool bias_term = 4 default=false',
        'optional FillerParameter bias_filler = 5',
    )),
    ('SigmoidParameter', (
        _ENGINE,
    ), (
        'optional Engine engine = 1 default=DEFAULT',
    )),
    ('SoftmaxParameter', (
        _ENGINE,
    ), (
        'optional Engine engine = 1 default=DEFAULT',
        'optional int32 axis = 2 default=1',
    )),
    ('SliceParameter', (), (
        'optional int32 axis = 3 default=1',
        'repeated uint32 slice_point = 2',
        'optional uint32 slice_dim = 1 default=1',
    )),
    ('TanHParameter', (
        _ENGINE,
    ), (
        'optional Engine engine = 1 default=DEFAULT',
    )),
    # The layer message of Caffe's first file format (before 2015): the type is an enum and the
    # parameter fields have other numbers.
    ('V1LayerParameter', (
        ('LayerType', (
            ('NONE', 0), ('ABSVAL', 35), ('ACCURACY', 1), ('ARGMAX', 30), ('BNLL', 2),
            ('CONCAT', 3), ('CONTRASTIVE_LOSS', 37), ('CONVOLUTION', 4), ('DATA', 5),
            ('DECONVOLUTION', 39), ('DROPOUT', 6), ('DUMMY_DATA', 32), ('EUCLIDEAN_LOSS', 7),
            ('ELTWISE', 25), ('EXP', 38), ('FLATTEN', 8), ('HDF5_DATA', 9),
            ('HDF5_OUTPUT', 10), ('HINGE_LOSS', 28), ('IM2COL', 11), ('IMAGE_DATA', 12),
            ('INFOGAIN_LOSS', 13), ('INNER_PRODUCT', 14), ('LRN', 15), ('MEMORY_DATA', 29),
            ('MULTINOMIAL_LOGISTIC_LOSS', 16), ('MVN', 34), ('POOLING', 17), ('POWER', 26),
            ('RELU', 18), ('SIGMOID', 19), ('SIGMOID_CROSS_ENTROPY_LOSS', 27),
            ('SILENCE', 36), ('SOFTMAX', 20), ('SOFTMAX_LOSS', 21), ('SPLIT', 22),
            ('SLICE', 33), ('TANH', 23), ('WINDOW_DATA', 24), ('THRESHOLD', 31))),
        ('DimCheckMode', (('STRICT', 0), ('PERMISSIVE', 1))),
    ), (
        'repeated string bottom = 2',
        'repeated string top = 3',
        'optional string name = 4',
        'repeated NetStateRule include = 32',
        'repeated NetStateRule exclude = 33',
        'optional LayerType type = 5',
        'repeated BlobProto blobs = 6',
        'repeated string param = 1001',
        'repeated DimCheckMode blob_share_mode = 1002',
        'repeated float blobs_lr = 7',
        'repeated float weight_decay = 8',
        'repeated float loss_weight = 35',
        'optional ConcatParameter concat_param = 9',
        'optional ConvolutionParameter convolution_param = 10',
        'optional DropoutParameter dropout_param = 12',
        'optional EltwiseParameter eltwise_param = 24',
        'optional InnerProductParameter inner_product_param = 17',
        'optional LRNParameter lrn_param = 18',
        'optional LossParameter loss_param = 42',
        'optional PoolingParameter pooling_param = 19',
        'optional PowerParameter power_param = 21',
        'optional ReLUParameter relu_param = 30',
        'optional SigmoidParameter sigmoid_param = 38',
        'optional SoftmaxParameter softmax_param = 39',
        'optional SliceParameter slice_param = 31',
        'optional TanHParameter tanh_param = 37',
    )),
)


def v1_layer_types() -> dict:
    """``{name: number}`` of ``V1LayerParameter.LayerType`` (``'CONVOLUTION': 4``, ...)."""
    for name, enums, _ in MESSAGES:
        if name == 'V1LayerParameter':
            return dict(dict(enums)['LayerType'])
    raise LookupError('V1LayerParameter is missing from the schema')
