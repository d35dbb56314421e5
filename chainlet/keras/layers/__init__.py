"""Keras layers (``from chainlet.keras import layers``)."""
from chainlet.keras.engine.base_layer import Layer  # noqa: F401
from chainlet.keras.engine.input_layer import Input, InputLayer  # noqa: F401
from chainlet.keras.engine.input_spec import InputSpec  # noqa: F401
from chainlet.keras.layers.dense import Dense  # noqa: F401
from chainlet.keras.layers.operation import Operation  # noqa: F401
from chainlet.keras.layers.core import (  # noqa: F401
    Activation, Dropout, Embedding, Flatten, Lambda, Permute, RepeatVector, Reshape)
from chainlet.keras.layers.convolutional import (  # noqa: F401
    Conv1D, Conv1DTranspose, Conv2D, Conv2DTranspose, Conv3D, Conv3DTranspose, Convolution1D,
    Convolution1DTranspose, Convolution2D, Convolution2DTranspose, Convolution3D,
    Convolution3DTranspose, DepthwiseConv1D, DepthwiseConv2D, SeparableConv1D, SeparableConv2D,
    SeparableConvolution1D, SeparableConvolution2D)
from chainlet.keras.layers.pooling import (  # noqa: F401
    AveragePooling1D, AveragePooling2D, AveragePooling3D, AvgPool1D, AvgPool2D, AvgPool3D,
    GlobalAveragePooling1D, GlobalAveragePooling2D, GlobalAveragePooling3D, GlobalAvgPool1D,
    GlobalAvgPool2D, GlobalAvgPool3D, GlobalMaxPool1D, GlobalMaxPool2D, GlobalMaxPool3D,
    GlobalMaxPooling1D, GlobalMaxPooling2D,
    GlobalMaxPooling3D, MaxPool1D, MaxPool2D, MaxPool3D, MaxPooling1D, MaxPooling2D,
    MaxPooling3D)
from chainlet.keras.layers.reshaping import (  # noqa: F401
    Cropping1D, Cropping2D, Cropping3D, UpSampling1D, UpSampling2D, UpSampling3D, ZeroPadding1D,
    ZeroPadding2D, ZeroPadding3D)
from chainlet.keras.layers.normalization import (  # noqa: F401
    BatchNormalization, GroupNormalization, LayerNormalization, RMSNormalization)
from chainlet.keras.layers.recurrent import (  # noqa: F401
    GRU, LSTM, Bidirectional, SimpleRNN, TimeDistributed)
from chainlet.keras.layers.merging import (  # noqa: F401
    Add, Average, Concatenate, Dot, Maximum, Minimum, Multiply, Subtract, add, average,
    concatenate, dot, maximum, minimum, multiply, subtract)
from chainlet.keras.layers.link_layer import LinkLayer  # noqa: F401,E402
from chainlet.keras.layers.conv_lstm import (  # noqa: F401,E402
    ConvLSTM1D, ConvLSTM2D, ConvLSTM3D)
from chainlet.keras.layers.wrapper import Wrapper  # noqa: F401,E402
from chainlet.keras.layers.einsum_dense import EinsumDense  # noqa: F401,E402
from chainlet.keras.layers.pipeline import Pipeline  # noqa: F401,E402
from chainlet.keras.layers.activation_layers import (  # noqa: F401
    ELU, LeakyReLU, PReLU, ReLU, Rescaling, Softmax)
from chainlet.keras.layers.preprocessing import (  # noqa: F401,E402
    CategoryEncoding, IntegerLookup, Normalization, StringLookup, TextVectorization)
from chainlet.keras.layers.regularization import (  # noqa: F401,E402
    ActivityRegularization, AlphaDropout, GaussianDropout, GaussianNoise, Identity, Masking,
    SpatialDropout1D, SpatialDropout2D, SpatialDropout3D, UnitNormalization)
from chainlet.keras.layers.augmentation import (  # noqa: F401,E402
    CenterCrop, RandomContrast, RandomCrop, RandomFlip, RandomRotation, RandomTranslation,
    RandomZoom, Resizing)
from chainlet.keras.layers.rnn_cells import (  # noqa: F401,E402
    RNN, GRUCell, LSTMCell, SimpleRNNCell, StackedRNNCells)
from chainlet.keras.layers.attention import (  # noqa: F401,E402
    AdditiveAttention, Attention, GroupedQueryAttention, GroupQueryAttention,
    MultiHeadAttention)
from chainlet.keras.saving.serialization_lib import serialize_keras_object  # noqa: E402


def serialize(layer: Layer) -> dict:  # noqa: E302
    """A layer's config ``{'module', 'class_name', 'config', 'registered_name'}``
    (``keras.layers.serialize``)."""
    return serialize_keras_object(layer)


def deserialize(config: dict, custom_objects: dict | None = None):  # noqa: E302
    """A layer from :func:`serialize`'s config (``keras.layers.deserialize``); custom classes
    come from ``custom_objects``, a ``custom_object_scope`` or the registry."""
    from chainlet.keras.engine import serialization
    return serialization.deserialize_layer(config, custom_objects)
