"""``SpectralNormalization``: divide a link's weight by its largest singular value.

Example:
    >>> import numpy as np, chainlet.links as L
    >>> from chainlet.link_hooks import SpectralNormalization
    >>> np.random.seed(0)
    >>> layer = L.Linear(6, 4).add_hook(SpectralNormalization(n_power_iteration=50))
    >>> layer.W_u.shape                    # the persistent estimate of the first left vector
    (4,)
    >>> y = layer(np.eye(6, dtype=np.float32))           # y = W_sn^T, as the bias is 0
    >>> round(float(np.linalg.svd(y.array, compute_uv=False)[0]), 3)
    1.0
"""
from __future__ import annotations

import numbers
from typing import Any, Optional

import numpy

import chainlet
import chainlet.functions as F
from chainlet import backend
from chainlet.link import Link
from chainlet.link_hook import LinkHook
from chainlet.links import _util
from chainlet.links.connection._conv import ConvolutionBase
from chainlet.links.connection.linear import Linear
from chainlet.parameter import Parameter
from chainlet.variable import Variable


def l2normalize(xp: Any, v: Any, eps: float) -> Any:
    """``v / (||v||_2 + eps)`` for an array ``v`` of the array module ``xp``."""
    return v / (xp.linalg.norm(v) + eps)


def update_approximate_vectors(weight_matrix: Variable, u: Any, n_power_iteration: int,
                               eps: float) -> tuple[Any, Any]:
    """Power iteration towards the first left and right singular vectors of a matrix.

    Args:
        weight_matrix: The 2-D weight (a Variable; its array is used, no graph is built).
        u: The current estimate of the first left singular vector, shape ``(rows,)``.
        n_power_iteration: Number of steps ``v = normalize(u W)``, ``u = normalize(W v)``.
        eps: Added to the norms.

    Returns:
        The new ``(u, v)`` (arrays).

    Example:
        >>> import numpy as np, chainlet
        >>> W = chainlet.Variable(np.diag([3., 1.]))
        >>> u, v = update_approximate_vectors(W, np.array([1., 1.]), 20, 1e-12)
        >>> float(calculate_max_singular_value(W, u, v).array).__round__(6)
        3.0
    """
    m = weight_matrix.array
    xp = backend.get_array_module(m)
    for _ in range(n_power_iteration):
        v = l2normalize(xp, xp.dot(u, m), eps)
        u = l2normalize(xp, xp.dot(m, v), eps)
    return u, v


def calculate_max_singular_value(weight_matrix: Variable, u: Any, v: Any) -> Variable:
    """``u W v``, the largest singular value of ``W`` when ``u`` and ``v`` are its first
    singular vectors; differentiable with respect to ``W`` (``u`` and ``v`` held constant)."""
    return F.matmul(F.matmul(u, weight_matrix), v)


def _as_matrix(W: Any, axis: int) -> Any:
    """``W`` (a Variable or an array) as a 2-D matrix whose rows run along ``axis``."""
    if axis != 0:
        order = (axis,) + tuple(i for i in range(W.ndim) if i != axis)
        W = F.transpose(W, order) if isinstance(W, Variable) else W.transpose(order)
    if W.ndim == 2:
        return W
    shape = (W.shape[0], W.size // W.shape[0] if W.shape[0] else 0)
    return F.reshape(W, shape) if isinstance(W, Variable) else W.reshape(shape)


class SpectralNormalization(LinkHook):
    """Link hook that replaces a weight ``W`` by ``W / sigma(W)`` in every forward.

    ``sigma(W)``, the largest singular value of ``W`` seen as a matrix (all axes but the output
    one flattened), is estimated by power iteration from a vector ``u`` that the hook adds to
    the link as a persistent value named ``<weight_name>_u``, so it is saved by the serializers
    and moved by ``to_device``. In each forward the hook runs ``n_power_iteration`` steps
    ``v = normalize(u W)``, ``u = normalize(W v)``, computes ``sigma = u W v`` with chainlet
    functions (so the gradient flows through ``sigma`` to ``W``, with ``u`` and ``v`` held
    constant), and stores the new ``u`` back only in training mode (``chainlet.config.train``).
    During ``forward`` the link's attribute holds the normalized Variable; it is the
    :class:`~chainlet.Parameter` again afterwards, and after ``delete_hook`` the link uses the
    plain weight again (``u`` and ``gamma`` are removed).

    The output axis is 0 (``Linear``, ``Convolution*D``, ``EmbedID``, ...) except for the
    deconvolution links (``Deconvolution*D``, ``DeconvolutionND``), whose ``W`` has the input
    channels first: there it is axis 1, as in Chainer. A lazily initialized weight is created
    from the first input before normalization.

    Add the hook before ``optimizer.setup(model)`` when ``use_gamma=True``: ``gamma`` is a new
    parameter, and a parameter added after setup gets no update rule.

    See T. Miyato et al., *Spectral Normalization for Generative Adversarial Networks*, 2018.

    Args:
        n_power_iteration: Number of power-iteration steps per forward (at least 1).
        eps: Added to the norms of the vectors, for numerical stability.
        use_gamma: Add a learnable scalar ``gamma`` to the link, initialized to the largest
            singular value of the initial weight, and use ``gamma * W / sigma``.
        factor: If given, divide by ``sigma / factor`` instead (so the largest singular value
            of the used weight is ``factor``).
        weight_name: Name of the link's weight parameter.
        name: Registration name of the hook; ``'SpectralNormalization'`` by default.

    Attributes:
        vector_name: Name of the persistent ``u`` on the link (``weight_name + '_u'``).
        v: The estimate of the first right singular vector from the last forward (``None``
            before it). A forward under ``config.in_recomputing`` reuses it and the stored
            ``u`` as they are, so that recomputation gives the same weight and changes nothing.
        axis: Output axis of the weight of the last link the hook was added to.

    Example:
        >>> import numpy as np, chainlet, chainlet.links as L
        >>> from chainlet.link_hooks import SpectralNormalization
        >>> conv = L.Convolution2D(3, 5, 3)
        >>> hook = SpectralNormalization()
        >>> _ = conv.add_hook(hook)
        >>> conv.W_u.shape, hook.axis
        ((5,), 0)
        >>> y = conv(np.zeros((1, 3, 8, 8), np.float32))
        >>> type(conv.W).__name__             # the Parameter again after the call
        'Parameter'
        >>> conv.delete_hook(hook.name)
        >>> hasattr(conv, 'W_u')
        False
        >>> deconv = L.Deconvolution2D(None, 4, 3).add_hook(SpectralNormalization())
        >>> _ = deconv(np.zeros((1, 2, 5, 5), np.float32))   # W is created by this call
        >>> deconv.W.shape, deconv.W_u.shape
        ((2, 4, 3, 3), (4,))
    """

    name = 'SpectralNormalization'

    def __init__(self, n_power_iteration: int = 1, eps: float = 1e-6, use_gamma: bool = False,
                 factor: Optional[float] = None, weight_name: str = 'W',
                 name: Optional[str] = None) -> None:
        cls = type(self).__name__

        def fail(exc: type, arg: str, expected: str, got: Any) -> None:
            raise exc(f'{cls}: argument {arg}: expected {expected}, got {got!r}')

        if isinstance(n_power_iteration, bool) or \
                not isinstance(n_power_iteration, numbers.Integral):
            fail(TypeError, 'n_power_iteration', 'an int', n_power_iteration)
        if n_power_iteration < 1:
            fail(ValueError, 'n_power_iteration', 'an int >= 1', n_power_iteration)
        if isinstance(eps, bool) or not isinstance(eps, numbers.Real):
            fail(TypeError, 'eps', 'a float', eps)
        if not eps >= 0:
            fail(ValueError, 'eps', 'a float >= 0', eps)
        if not isinstance(use_gamma, (bool, numpy.bool_)):
            fail(TypeError, 'use_gamma', 'a bool', use_gamma)
        if factor is not None:
            if isinstance(factor, bool) or not isinstance(factor, numbers.Real):
                fail(TypeError, 'factor', 'a float or None', factor)
            if not factor > 0:
                fail(ValueError, 'factor', 'a float > 0 or None', factor)
        if not isinstance(weight_name, str) or not weight_name:
            fail(TypeError, 'weight_name', 'a non-empty str', weight_name)
        if name is not None and not isinstance(name, str):
            fail(TypeError, 'name', 'a str or None', name)
        self.n_power_iteration = int(n_power_iteration)
        self.eps = float(eps)
        self.use_gamma = bool(use_gamma)
        self.factor = None if factor is None else float(factor)
        self.weight_name = weight_name
        self.vector_name = weight_name + '_u'
        self.axis = 0
        self.v: Any = None  # the last estimate of the first right singular vector
        if name is not None:
            self.name = name

    def __enter__(self) -> 'SpectralNormalization':
        raise NotImplementedError(f'{type(self).__name__} is a hook of one link, not a '
                                  f'thread-wide hook: register it with link.add_hook(hook) '
                                  f'instead of using it in a with statement')

    def __exit__(self, *exc_info: Any) -> None:
        raise NotImplementedError(f'{type(self).__name__} cannot be used in a with statement')

    # -- registration --

    @property
    def _stash_name(self) -> str:
        # Where the Parameter waits while the link's attribute holds the normalized weight.
        return f'_{self.vector_name}_original'

    @staticmethod
    def _output_axis(link: Link) -> int:
        return 1 if isinstance(link, ConvolutionBase) and link._transposed else 0

    def added(self, link: Optional[Link]) -> None:
        cls = type(self).__name__
        if not isinstance(link, Link):
            raise TypeError(f'{cls}.added: argument link: expected a chainlet.Link, got '
                            f'{type(link).__name__}')
        weight = getattr(link, self.weight_name, None)
        if not isinstance(weight, Parameter):
            raise ValueError(f'{cls}: argument weight_name: expected the name of a Parameter of '
                             f'{type(link).__name__}, got {self.weight_name!r} (its value is '
                             f'{type(weight).__name__})')
        for attr in [self.vector_name] + (['gamma'] if self.use_gamma else []):
            if attr in link.__dict__:
                raise ValueError(f'{cls}: the link {type(link).__name__} already has an '
                                 f'attribute {attr!r}, which the hook would add; is a '
                                 f'{cls} already normalizing {self.weight_name!r}?')
        self.axis = self._output_axis(link)
        if weight.array is not None:
            self._prepare(link)

    def deleted(self, link: Optional[Link]) -> None:
        if link is None:
            return
        d = link.__dict__
        original = d.pop(self._stash_name, None)
        if original is not None:  # a forward raised before the postprocess could restore it
            setattr(link, self.weight_name, original)
        if self.vector_name in d:
            delattr(link, self.vector_name)
        if self.use_gamma and 'gamma' in d:
            delattr(link, 'gamma')

    def _prepare(self, link: Link) -> None:
        """Create ``u`` (and ``gamma``) once the weight exists."""
        W = getattr(link, self.weight_name).array
        axis = self._output_axis(link)
        if W.shape[axis] == 0:
            raise ValueError(f'{type(self).__name__}: the weight {self.weight_name!r} of '
                             f'{type(link).__name__} has shape {W.shape}: expected a non-zero '
                             f'size on its output axis {axis}')
        u = numpy.random.normal(size=(W.shape[axis],)).astype(W.dtype)
        link.add_persistent(self.vector_name, u)  # moved to the link's device
        if self.use_gamma:
            matrix = _as_matrix(backend.to_cpu(W), axis)
            sigma = numpy.linalg.svd(matrix.astype(numpy.float64), compute_uv=False)[0]
            with link.init_scope():
                link.gamma = Parameter(numpy.array(sigma, dtype=W.dtype))

    @staticmethod
    def _initialize_weight(link: Link, args: tuple, kwargs: dict) -> None:
        """Create a lazily initialized weight from the first input, as its forward would."""
        if not args:
            raise RuntimeError(f'SpectralNormalization: the weight of {type(link).__name__} is '
                               f'not initialized and the call has no positional input to '
                               f'infer its size from')
        x = args[0]
        if isinstance(link, Linear):
            n_batch_axes = kwargs.get('n_batch_axes', args[1] if len(args) > 1 else 1)
            link._initialize_params(_util.size_of_shape(x.shape[n_batch_axes:]))
        elif hasattr(link, '_initialize_params'):
            link._initialize_params(int(x.shape[1]))
        else:
            raise RuntimeError(f'SpectralNormalization: the weight of {type(link).__name__} is '
                               f'not initialized and the hook does not know how to create it; '
                               f'initialize it before the first call')

    # -- forward --

    def forward_preprocess(self, args: Any) -> None:
        link = args.link
        d = link.__dict__
        # A stashed Parameter means an earlier forward raised: that one is the real weight.
        weight = d.pop(self._stash_name, None)
        if weight is None:
            weight = getattr(link, self.weight_name)
        if weight.array is None:
            self._initialize_weight(link, args.args, args.kwargs)
        if self.vector_name not in d:
            self._prepare(link)
        d[self._stash_name] = weight
        setattr(link, self.weight_name, self.normalize_weight(link, weight))

    def forward_postprocess(self, args: Any) -> None:
        link = args.link
        setattr(link, self.weight_name, link.__dict__.pop(self._stash_name))

    def normalize_weight(self, link: Link, weight: Optional[Parameter] = None) -> Variable:
        """Return the normalized weight (a Variable in the graph of ``weight``).

        Runs the power iteration from the link's ``u`` and, in training mode, stores the new
        ``u`` back into the link.

        Args:
            link: A link the hook was added to.
            weight: The weight to normalize; the link's attribute ``weight_name`` by default.
        """
        W = getattr(link, self.weight_name) if weight is None else weight
        u = getattr(link, self.vector_name)
        matrix = _as_matrix(W, self._output_axis(link))
        # A forward re-run to recompute activations (config.in_recomputing, e.g. under
        # F.forget) must give the same weight: it reuses the vectors of the first run.
        recomputing = chainlet.config.in_recomputing and self.v is not None
        with chainlet.using_device(link.device):
            if recomputing:
                v = self.v
            else:
                u, v = update_approximate_vectors(matrix, u, self.n_power_iteration, self.eps)
            sigma = calculate_max_singular_value(matrix, u, v)
            if self.factor is not None:
                sigma = sigma / self.factor
            # (getattr: gamma is added to the link by _prepare, Link does not declare it)
            W = (getattr(link, 'gamma') * W if self.use_gamma else W) / sigma
            if not recomputing:
                self.v = v
                if chainlet.config.train:
                    backend.copyto(getattr(link, self.vector_name), u)
        return W

    def reshape_W(self, W: Any) -> Any:
        """``W`` (a Variable or an array) as a 2-D matrix whose rows run along :attr:`axis`,
        the other axes flattened into the columns."""
        return _as_matrix(W, self.axis)
