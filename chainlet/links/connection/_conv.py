"""Common construction of the (de)convolution links: argument forms and parameters."""
from __future__ import annotations

from typing import Any, Optional

from chainlet import initializers
from chainlet.link import Link
from chainlet.links import _util
from chainlet.parameter import Parameter


class ConvolutionBase(Link):
    """Shared ``__init__`` of the convolution and deconvolution links.

    Subclasses set ``_transposed`` (whether ``W`` has its input channels first, as in a
    deconvolution) and call :meth:`_setup`.
    """

    _transposed = False

    def _setup(self, name: str, ndim: int, in_channels: Optional[int],
               out_channels: Optional[int], ksize: Any, stride: Any, pad: Any, nobias: bool,
               initialW: Any, initial_bias: Any, dilate: Any, groups: int) -> None:
        if ksize is None:  # the two-argument form: (out_channels, ksize)
            out_channels, ksize, in_channels = in_channels, out_channels, None
        if ksize is None:
            raise TypeError(f'{name}: argument ksize: expected an int or a tuple of {ndim} ints, '
                            f'got None')
        self._name = name
        self.ndim = ndim
        self.in_channels = _util.check_size(name, 'in_channels', in_channels, allow_none=True)
        self.out_channels = _util.check_size(name, 'out_channels', out_channels)
        self.ksize = _util.as_tuple(name, 'ksize', ksize, ndim)
        self.stride = _util.as_tuple(name, 'stride', stride, ndim)
        self.pad = _util.as_tuple(name, 'pad', pad, ndim)
        self.dilate = _util.as_tuple(name, 'dilate', dilate, ndim)
        self.groups = _util.check_size(name, 'groups', groups)
        self.nobias = bool(nobias)
        if self.out_channels % self.groups:
            raise ValueError(f'{name}: argument out_channels: expected a multiple of groups = '
                             f'{self.groups}, got {self.out_channels}')
        dtype = _util.resolve_dtype(initialW, None if nobias else initial_bias)
        with self.init_scope():
            self.W = Parameter(_util.get_initializer(
                initialW, initializers.LeCunNormal(), dtype, name, 'initialW'))
            if self.in_channels is not None:
                self._initialize_params(self.in_channels)
            if self.nobias:
                self.b = None
            else:
                self.b = Parameter(_util.get_initializer(
                    initial_bias, 0, dtype, name, 'initial_bias'), (self.out_channels,))

    def _initialize_params(self, in_channels: int) -> None:
        if in_channels % self.groups:
            raise ValueError(f'{self._name}: the number of input channels must be a multiple '
                             f'of groups = {self.groups}, got {in_channels}')
        self.in_channels = in_channels
        if self._transposed:
            shape = (in_channels, self.out_channels // self.groups) + self.ksize
        else:
            shape = (self.out_channels, in_channels // self.groups) + self.ksize
        self.W.initialize(shape)

    def _ensure_params(self, x: Any) -> None:
        if self.W.array is None:
            if len(x.shape) < 2:
                raise ValueError(f'{self._name}: argument x: expected shape (n, c, ...), got '
                                 f'{tuple(x.shape)}')
            self._initialize_params(int(x.shape[1]))

    def _repr_args(self) -> dict:
        args = {'in_channels': self.in_channels, 'out_channels': self.out_channels,
                'ksize': self.ksize, 'stride': self.stride, 'pad': self.pad,
                'nobias': self.nobias}
        if any(d != 1 for d in self.dilate):
            args['dilate'] = self.dilate
        if self.groups != 1:
            args['groups'] = self.groups
        return args


def split_params(name: str, W: Any, b: Any, ndim: Optional[int], groups: int,
                 transposed: bool = False) -> tuple:
    """Sizes and arrays of a (de)convolution link built ``from_params(W, b)``.

    Returns:
        ``(in_channels, out_channels, ksize, W_array, b_array)``. For a convolution ``W`` is
        ``(out, in / groups, *k)``; for a deconvolution (``transposed``) it is
        ``(in, out / groups, *k)``.
    """
    W = _util.as_array(W)
    b = _util.as_array(b)
    if W is None or (ndim is not None and W.ndim != ndim + 2) or W.ndim < 3:
        raise ValueError(f'{name}.from_params: argument W: expected a filter array of '
                         f'{ndim or "at least 1"} spatial dimension(s), got '
                         f'{None if W is None else W.shape}')
    if transposed:
        in_channels, out_channels = W.shape[0], W.shape[1] * groups
    else:
        out_channels, in_channels = W.shape[0], W.shape[1] * groups
    if b is not None and b.size != out_channels:
        raise ValueError(f'{name}.from_params: `out_channels` does not match the size of `b`: '
                         f'{out_channels} != {b.size}')
    return in_channels, out_channels, tuple(W.shape[2:]), W, b
