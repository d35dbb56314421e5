"""Links that connect inputs to outputs: linear, convolutions, embeddings, recurrent layers."""
from chainlet.links.connection.bias import Bias  # noqa: F401
from chainlet.links.connection.bilinear import Bilinear  # noqa: F401
from chainlet.links.connection.convolution_2d import Convolution2D  # noqa: F401
from chainlet.links.connection.convolution_nd import (  # noqa: F401
    Convolution1D, Convolution3D, ConvolutionND)
from chainlet.links.connection.deconvolution_2d import Deconvolution2D  # noqa: F401
from chainlet.links.connection.deconvolution_nd import (  # noqa: F401
    Deconvolution1D, Deconvolution3D, DeconvolutionND)
from chainlet.links.connection.deformable_convolution_2d import (  # noqa: F401
    DeformableConvolution2D, DeformableConvolution2DSampler)
from chainlet.links.connection.depthwise_convolution_2d import (  # noqa: F401
    DepthwiseConvolution2D)
from chainlet.links.connection.dilated_convolution_2d import DilatedConvolution2D  # noqa: F401
from chainlet.links.connection.embed_id import EmbedID  # noqa: F401
from chainlet.links.connection.gru import GRU, StatefulGRU, StatelessGRU  # noqa: F401
from chainlet.links.connection.highway import Highway  # noqa: F401
from chainlet.links.connection.inception import Inception  # noqa: F401
from chainlet.links.connection.inceptionbn import InceptionBN  # noqa: F401
from chainlet.links.connection.linear import Linear  # noqa: F401
from chainlet.links.connection.local_convolution_2d import LocalConvolution2D  # noqa: F401
from chainlet.links.connection.lstm import LSTM, StatelessLSTM  # noqa: F401
from chainlet.links.connection.mgu import StatefulMGU, StatelessMGU  # noqa: F401
from chainlet.links.connection.mlp_convolution_2d import MLPConvolution2D  # noqa: F401
from chainlet.links.connection.n_step_gru import NStepBiGRU, NStepGRU  # noqa: F401
from chainlet.links.connection.n_step_lstm import NStepBiLSTM, NStepLSTM  # noqa: F401
from chainlet.links.connection.n_step_rnn import (  # noqa: F401
    NStepBiRNNReLU, NStepBiRNNTanh, NStepRNNReLU, NStepRNNTanh)
from chainlet.links.connection.scale import Scale  # noqa: F401
from chainlet.links.connection.parameter import Parameter  # noqa: F401
from chainlet.links.connection.peephole import StatefulPeepholeLSTM  # noqa: F401
from chainlet.links.connection.simplified_dropconnect import SimplifiedDropconnect  # noqa: F401
from chainlet.links.connection.tree_lstm import ChildSumTreeLSTM, NaryTreeLSTM  # noqa: F401
from chainlet.links.connection.zoneoutlstm import StatefulZoneoutLSTM  # noqa: F401
