"""Attention layers: ``MultiHeadAttention``, ``GroupedQueryAttention``, ``Attention`` (Luong)
and ``AdditiveAttention`` (Bahdanau), with Keras 3's arguments, weights and formulas.

Design: the projections of the multi-head layers are small private sublayers whose weights
keep Keras's layouts (query kernel ``(dim, num_heads, key_dim)``, output kernel
``(num_heads, value_dim, output_dim)``) but compute as one reshaped matrix product each. The
attention itself moves the attention axes next to the channels, flattens them, and runs batched
``F.matmul``; so any ``attention_axes`` reduce to the ``(batch, positions, channels)`` case and
the whole layer is made of differentiable chainlet functions (double backprop included).

Masks follow Keras: ``1``/``True`` marks the key positions a query may attend to; a masked
score gets ``-1e9`` added (``-3e4`` in float16) before the softmax, so a row whose keys are all
masked becomes uniform rather than NaN. A multi-head layer's ``build`` needs the shapes of
query, value and key, so it builds on its first call (or from ``build(query_shape,
value_shape, key_shape)``), not from the query's shape alone.
"""
from __future__ import annotations

import math
from typing import Any, Optional, Sequence, cast

import numpy

import chainlet
import chainlet.functions as F
from chainlet import Parameter, Variable, backend
from chainlet.keras import constraints, initializers, regularizers
from chainlet.keras.engine.base_layer import Layer
from chainlet.keras.engine.keras_tensor import KerasTensor


def _large_negative(dtype: Any) -> float:
    return -3e4 if numpy.dtype(dtype) == numpy.float16 else -1e9


def _prod(values: Sequence[int]) -> int:
    out = 1
    for v in values:
        out *= int(v)
    return out


def _array(x: Any) -> Any:
    return x.array if isinstance(x, Variable) else x


def _clone_initializer(init: Any) -> Any:
    # Each projection gets its own initializer object, so that seeded initializers do not give
    # identical kernels to query, key and value (as in Keras).
    if isinstance(init, initializers.Initializer):
        return type(init).from_config(init.get_config())
    return init


def _serialize_constraint(constraint: Any) -> Any:
    if constraint is None:
        return None
    from chainlet.keras.saving import serialize_keras_object
    return serialize_keras_object(constraint)


class _Projection(Layer):
    """``inputs`` contracted on their last ``bound_dims`` axes with a kernel of shape
    ``inputs.shape[-bound_dims:] + output_dims`` (plus a bias of shape ``output_dims``)."""

    def __init__(self, bound_dims: int, output_dims: tuple, use_bias: bool,
                 kernel_initializer: Any, bias_initializer: Any, kernel_regularizer: Any,
                 bias_regularizer: Any, kernel_constraint: Any, bias_constraint: Any,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.bound_dims = bound_dims
        self.output_dims = tuple(int(d) for d in output_dims)
        self.use_bias = use_bias
        self._init = (kernel_initializer, bias_initializer)
        self._reg = (kernel_regularizer, bias_regularizer)
        self._con = (kernel_constraint, bias_constraint)

    def build(self, input_shape: Any) -> None:
        bound = tuple(input_shape[-self.bound_dims:])
        if any(d is None for d in bound):
            raise ValueError(f'{self.name}: the last {self.bound_dims} dimension(s) of the '
                             f'input must be known, got input shape {input_shape}')
        self.kernel = self.add_weight('kernel', bound + self.output_dims,
                                      initializer=self._init[0], regularizer=self._reg[0],
                                      constraint=self._con[0])
        self.bias = self.add_weight('bias', self.output_dims, initializer=self._init[1],
                                    regularizer=self._reg[1],
                                    constraint=self._con[1]) if self.use_bias else None
        self.built = True

    def call(self, inputs: Any) -> Any:
        lead = inputs.shape[:-self.bound_dims]
        n_in = _prod(inputs.shape[-self.bound_dims:])
        n_out = _prod(self.output_dims)
        y = F.matmul(F.reshape(inputs, (-1, n_in)), F.reshape(self.kernel, (n_in, n_out)))
        if self.bias is not None:
            y = y + F.reshape(self.bias, (n_out,))
        return F.reshape(y, tuple(lead) + self.output_dims)


class MultiHeadAttention(Layer):
    """Multi-head (scaled dot-product) attention of "Attention Is All You Need".

    ``query``, ``key`` and ``value`` are projected to ``num_heads`` heads
    (``key_dim``/``value_dim`` channels each); each head computes
    ``softmax(q k^T / sqrt(key_dim) + mask) v`` over the attention axes; the heads are projected
    back to ``output_shape`` (the query's last dimension by default).

    Args:
        num_heads: Number of heads.
        key_dim: Channels per head of query and key.
        value_dim: Channels per head of value (``key_dim`` by default).
        dropout: Dropout rate on the attention probabilities (training only).
        use_bias: Whether the four projections have biases.
        output_shape: Int or tuple: trailing shape of the output (default: query's last dim).
        attention_axes: Axes of the inputs attention runs over (default: all but batch and
            channels); the other axes are independent batches.
        kernel_initializer, bias_initializer: Initializers of the projections.
        kernel_regularizer, bias_regularizer, activity_regularizer: Regularizers.
        kernel_constraint, bias_constraint: Constraints.
        seed: Seed of the dropout's random generator.

    Call arguments:
        query: ``(B, T, dim)`` (or ``(B, *positions, dim)``).
        value: ``(B, S, dim_v)``.
        key: ``(B, S, dim_k)``; ``value`` when omitted.
        attention_mask: Boolean ``(B, T, S)`` (broadcast over heads; also ``(T, S)``);
            ``True`` where a query position may attend to a key position.
        return_attention_scores: Also return the attention probabilities
            ``(B, num_heads, T, S)``.
        training: Apply dropout.
        use_causal_mask: Forbid attending to later positions (decoder self-attention).
        query_mask, value_mask, key_mask: Optional boolean ``(B, T)`` / ``(B, S)`` padding
            masks, combined with ``attention_mask``.

    Shape:
        ``(B, T, dim)`` -> ``(B, T, output_shape or dim)``.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> mha = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)
        >>> q = np.ones((1, 3, 8), np.float32)
        >>> v = np.ones((1, 5, 6), np.float32)
        >>> out, scores = mha(q, v, return_attention_scores=True)
        >>> out.shape, scores.shape
        ((1, 3, 8), (1, 2, 3, 5))
    """

    def __init__(self, num_heads: int, key_dim: int, value_dim: Optional[int] = None,
                 dropout: float = 0.0, use_bias: bool = True, output_shape: Any = None,
                 attention_axes: Any = None, flash_attention: Any = None,
                 kernel_initializer: Any = 'glorot_uniform', bias_initializer: Any = 'zeros',
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, seed: Optional[int] = None,
                 **kwargs: Any) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        cls = type(self).__name__
        for arg, value in (('num_heads', num_heads), ('key_dim', key_dim)):
            if isinstance(value, bool) or not isinstance(value, (int, numpy.integer)) or \
                    value <= 0:
                raise ValueError(f'{cls} "{self.name}": argument {arg}: expected a positive '
                                 f'int, got {value!r}')
        if value_dim is not None and (isinstance(value_dim, bool) or value_dim <= 0):
            raise ValueError(f'{cls} "{self.name}": argument value_dim: expected a positive '
                             f'int or None, got {value_dim!r}')
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or \
                not 0 <= dropout < 1:
            raise ValueError(f'{cls} "{self.name}": argument dropout: expected a float in '
                             f'[0, 1), got {dropout!r}')
        self.num_heads = int(num_heads)
        self.key_dim = int(key_dim)
        self.value_dim = int(value_dim) if value_dim else self.key_dim
        self.dropout = float(dropout)
        self.use_bias = bool(use_bias)
        if output_shape is not None and not isinstance(output_shape, (list, tuple)):
            if isinstance(output_shape, bool) or not isinstance(output_shape, int):
                raise ValueError(f'{cls} "{self.name}": argument output_shape: expected an '
                                 f'int, tuple or list, got {output_shape!r}')
            output_shape = (output_shape,)
        self._output_shape_arg = None if not output_shape else tuple(output_shape)
        if isinstance(attention_axes, int):
            attention_axes = (attention_axes,)
        elif attention_axes is not None and not isinstance(attention_axes, (list, tuple)):
            raise ValueError(f'{cls} "{self.name}": argument attention_axes: expected an int, '
                             f'list or tuple, got {attention_axes!r}')
        self.attention_axes = None if attention_axes is None else tuple(attention_axes)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.seed = seed
        self._rng = None if seed is None else numpy.random.default_rng(seed)
        self._build_shapes: Optional[dict] = None

    # -- building --

    def _projection(self, bound_dims: int, output_dims: tuple, name: str) -> _Projection:
        return _Projection(bound_dims, output_dims, self.use_bias,
                           _clone_initializer(self.kernel_initializer),
                           _clone_initializer(self.bias_initializer), self.kernel_regularizer,
                           self.bias_regularizer, self.kernel_constraint, self.bias_constraint,
                           name=name, dtype=self._dtype)

    def _maybe_build(self, input_shape: Any) -> None:
        # The query's shape alone is not enough: built by the first call (see _build_from).
        pass

    def build(self, query_shape: Any, value_shape: Any = None, key_shape: Any = None) -> None:
        """Create the projections from the shapes of query, value and key (with batch)."""
        query_shape = tuple(query_shape)
        value_shape = query_shape if value_shape is None else tuple(value_shape)
        key_shape = value_shape if key_shape is None else tuple(key_shape)
        cls = type(self).__name__
        if value_shape[1:-1] != key_shape[1:-1]:
            raise ValueError(f'{cls} "{self.name}": all dimensions of value and key except '
                             f'the last must be equal, got value shape {value_shape} and key '
                             f'shape {key_shape}')
        if len(query_shape) != len(value_shape):
            raise ValueError(f'{cls} "{self.name}": query and value must have the same rank, '
                             f'got shapes {query_shape} and {value_shape}')
        rank = len(query_shape)
        if rank < 3:
            raise ValueError(f'{cls} "{self.name}": inputs must have rank >= 3 (batch, '
                             f'positions..., channels), got query shape {query_shape}')
        positions = rank - 2
        if self.attention_axes is None:
            axes = tuple(range(1, rank - 1))
        else:
            axes = tuple(sorted(a + rank if a < 0 else a for a in self.attention_axes))
            if any(not 1 <= a <= positions for a in axes) or len(set(axes)) != len(axes):
                raise ValueError(f'{cls} "{self.name}": argument attention_axes: expected '
                                 f'distinct axes in [1, {positions}] (or negative), got '
                                 f'{self.attention_axes} for inputs of rank {rank}')
        self._axes = axes
        self.query_dense = self._projection(1, (self.num_heads, self.key_dim), 'query')
        self.key_dense = self._projection(1, (self.num_heads, self.key_dim), 'key')
        self.value_dense = self._projection(1, (self.num_heads, self.value_dim), 'value')
        out = self._output_shape_arg or (query_shape[-1],)
        self.output_dense = self._projection(2, out, 'attention_output')
        self.query_dense._maybe_build(query_shape)
        self.key_dense._maybe_build(key_shape)
        self.value_dense._maybe_build(value_shape)
        self.output_dense._maybe_build(query_shape[:-1] + (self.num_heads, self.value_dim))
        self._build_shapes = {'query_shape': query_shape, 'value_shape': value_shape,
                              'key_shape': key_shape}
        self.built = True

    def get_build_config(self) -> Optional[dict]:
        # built: build() has set _build_shapes
        return None if not self.built else dict(cast(dict, self._build_shapes))

    def build_from_config(self, config: Optional[dict]) -> None:
        if config and not self.built:
            self.build(config['query_shape'], config.get('value_shape'),
                       config.get('key_shape'))

    def _build_from(self, query: Any, value: Any, key: Any) -> None:
        if not self.built:
            self.build(query.shape, value.shape, None if key is None else key.shape)

    # -- attention --

    def _mask(self, query: Any, value: Any, attention_mask: Any, query_mask: Any,
              value_mask: Any, key_mask: Any, use_causal_mask: bool) -> Any:
        """The boolean mask (an array, broadcastable over the heads) or ``None``."""
        xp = backend.get_array_module(_array(query))
        mask = None

        def both(a: Any, b: Any) -> Any:
            return b if a is None else xp.logical_and(a, b)
        if query_mask is not None:
            mask = xp.asarray(_array(query_mask)).astype(bool)[..., :, None]
        for m in (value_mask, key_mask):
            if m is not None:
                mask = both(mask, xp.asarray(_array(m)).astype(bool)[..., None, :])
        if use_causal_mask:
            t, s = query.shape[1], value.shape[1]
            mask = both(mask, xp.tril(xp.ones((1, t, s), dtype=bool)))
        if attention_mask is not None:
            mask = both(xp.asarray(_array(attention_mask)).astype(bool), mask) \
                if mask is not None else xp.asarray(_array(attention_mask)).astype(bool)
        return mask

    def _to_heads(self, x: Any) -> tuple:
        """``(B, d1..dn, N, H)`` -> ``(B * batch-like dims * N, attention positions, H)``,
        with what :meth:`_from_heads` needs to undo it."""
        n = x.ndim - 3  # positions axes are 1..n
        batch_like = [a for a in range(1, n + 1) if a not in self._axes]
        perm = [0] + batch_like + [n + 1] + list(self._axes) + [n + 2]
        y = F.transpose(x, perm)
        lead = y.shape[:len(batch_like) + 2]
        positions = y.shape[len(batch_like) + 2:-1]
        return F.reshape(y, (-1, _prod(positions), x.shape[-1])), perm, lead, positions

    def _attend(self, q: Any, k: Any, v: Any, mask: Any, training: Any,
                with_scores: bool) -> tuple:
        """Scaled dot-product attention of projected ``(B, ..., N, H)`` tensors."""
        q = q * (1.0 / math.sqrt(float(self.key_dim)))
        q2, perm, lead, q_pos = self._to_heads(q)
        k2, _, k_lead, k_pos = self._to_heads(k)
        v2, _, _, _ = self._to_heads(v)
        if tuple(lead) != tuple(k_lead):
            raise ValueError(f'{type(self).__name__} "{self.name}": query and key differ on '
                             f'the batch or non-attention axes: {tuple(lead)} vs '
                             f'{tuple(k_lead)}')
        scores = F.matmul(q2, F.transpose(k2, (0, 2, 1)))  # (M, Tq, Tk)
        flat = scores.shape
        full = tuple(lead) + tuple(q_pos) + tuple(k_pos)  # Keras's score layout
        if mask is not None:
            xp = backend.get_array_module(scores.array)
            n_axes = len(self._axes)
            mask = xp.asarray(mask)
            while mask.ndim < len(full):
                axis = mask.ndim - 2 * n_axes  # before the query/key positions: the heads
                mask = xp.expand_dims(mask, max(axis, 0))
            try:
                mask = xp.broadcast_to(mask, full)
            except ValueError as e:
                raise ValueError(f'{type(self).__name__} "{self.name}": attention_mask of '
                                 f'shape {mask.shape} does not broadcast to the attention '
                                 f'scores {full}') from e
            adder = (1.0 - mask.reshape(flat).astype(scores.dtype)) * \
                _large_negative(scores.dtype)
            scores = scores + adder.astype(scores.dtype)
        probs = F.softmax(scores, axis=-1)
        used = probs
        if training and self.dropout > 0:
            with chainlet.using_config('train', True):
                used = F.dropout(probs, self.dropout, rng=self._rng)
        out = F.matmul(used, v2)  # (M, Tq, Hv)
        out = F.reshape(out, tuple(lead) + tuple(q_pos) + (out.shape[-1],))
        out = F.transpose(out, tuple(int(i) for i in numpy.argsort(perm)))
        return out, (F.reshape(probs, full) if with_scores else None)

    def call(self, query: Any, value: Any, key: Any = None, query_mask: Any = None,
             value_mask: Any = None, key_mask: Any = None, attention_mask: Any = None,
             return_attention_scores: bool = False, training: Any = None,
             use_causal_mask: bool = False) -> Any:
        value = self._cast_input(value)
        key = value if key is None else self._cast_input(key)
        self._build_from(query, value, key)
        mask = self._mask(query, value, attention_mask, query_mask, value_mask, key_mask,
                          use_causal_mask)
        q = self.query_dense(query)
        k = self.key_dense(key)
        v = self.value_dense(value)
        out, scores = self._attend(q, k, v, mask, training, return_attention_scores)
        out = self.output_dense(out)
        return (out, scores) if return_attention_scores else out

    # Keras's signature (query, value, key), not the base's (inputs, ...).
    def compute_output_spec(  # type: ignore[override]
            self, query: Any, value: Any, key: Any = None, *args: Any,
            return_attention_scores: bool = False, **kwargs: Any) -> Any:
        self._build_from(query, value, key)
        out_tail = self._output_shape_arg or (query.shape[-1],)
        out = KerasTensor(query.shape[:-1] + tuple(out_tail), self._dtype)
        if not return_attention_scores:
            return out
        rank = len(query.shape)
        batch_like = [a for a in range(1, rank - 1) if a not in self._axes]
        shape = ((query.shape[0],) + tuple(query.shape[a] for a in batch_like) +
                 (self.num_heads,) + tuple(query.shape[a] for a in self._axes) +
                 tuple(value.shape[a] for a in self._axes))
        return out, KerasTensor(shape, self._dtype)

    def compute_output_shape(self, query_shape: Any, value_shape: Any = None,
                             key_shape: Any = None) -> tuple:
        tail = self._output_shape_arg or (tuple(query_shape)[-1],)
        return tuple(query_shape)[:-1] + tuple(tail)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(
            num_heads=self.num_heads, key_dim=self.key_dim, value_dim=self.value_dim,
            dropout=self.dropout, use_bias=self.use_bias,
            output_shape=None if self._output_shape_arg is None else
            list(self._output_shape_arg),
            attention_axes=None if self.attention_axes is None else list(self.attention_axes),
            kernel_initializer=initializers.serialize(self.kernel_initializer),
            bias_initializer=initializers.serialize(self.bias_initializer),
            kernel_regularizer=regularizers.serialize(self.kernel_regularizer),
            bias_regularizer=regularizers.serialize(self.bias_regularizer),
            kernel_constraint=_serialize_constraint(self.kernel_constraint),
            bias_constraint=_serialize_constraint(self.bias_constraint), seed=self.seed)
        return config


class GroupedQueryAttention(MultiHeadAttention):
    """Grouped-query attention: ``num_query_heads`` query heads share ``num_key_value_heads``
    key/value heads (each key/value head serves ``num_query_heads // num_key_value_heads``
    consecutive query heads). ``num_key_value_heads == 1`` is multi-query attention.

    Args:
        head_dim: Channels per head (query, key and value).
        num_query_heads: Number of query heads.
        num_key_value_heads: Number of key/value heads; must divide ``num_query_heads``.
        dropout, use_bias, kernel_initializer, ...: As in :class:`MultiHeadAttention`.

    Call arguments are those of :class:`MultiHeadAttention` (rank-3 inputs); the scores
    have shape ``(B, num_query_heads, T, S)``.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> gqa = keras.layers.GroupedQueryAttention(head_dim=4, num_query_heads=4,
        ...                                          num_key_value_heads=2)
        >>> x = np.ones((2, 3, 8), np.float32)
        >>> gqa(x, x).shape
        (2, 3, 8)
    """

    def __init__(self, head_dim: int, num_query_heads: int, num_key_value_heads: int,
                 dropout: float = 0.0, use_bias: bool = True, **kwargs: Any) -> None:
        super().__init__(num_heads=num_query_heads, key_dim=head_dim, dropout=dropout,
                         use_bias=use_bias, **kwargs)
        if isinstance(num_key_value_heads, bool) or \
                not isinstance(num_key_value_heads, (int, numpy.integer)) or \
                num_key_value_heads <= 0 or num_query_heads % num_key_value_heads:
            raise ValueError(f'GroupedQueryAttention "{self.name}": argument '
                             f'num_key_value_heads: expected a positive divisor of '
                             f'num_query_heads={num_query_heads}, got {num_key_value_heads!r}')
        self.head_dim = int(head_dim)
        self.num_query_heads = int(num_query_heads)
        self.num_key_value_heads = int(num_key_value_heads)

    def build(self, query_shape: Any, value_shape: Any = None, key_shape: Any = None) -> None:
        query_shape = tuple(query_shape)
        if len(query_shape) != 3:
            raise ValueError(f'GroupedQueryAttention "{self.name}": expected rank-3 inputs '
                             f'(batch, positions, channels), got query shape {query_shape}')
        value_shape = query_shape if value_shape is None else tuple(value_shape)
        key_shape = value_shape if key_shape is None else tuple(key_shape)
        self._axes = (1,)
        kv = (self.num_key_value_heads, self.head_dim)
        self.query_dense = self._projection(1, (self.num_query_heads, self.head_dim), 'query')
        self.key_dense = self._projection(1, kv, 'key')
        self.value_dense = self._projection(1, kv, 'value')
        self.output_dense = self._projection(2, (query_shape[-1],), 'attention_output')
        self.query_dense._maybe_build(query_shape)
        self.key_dense._maybe_build(key_shape)
        self.value_dense._maybe_build(value_shape)
        self.output_dense._maybe_build(query_shape[:-1] + (self.num_query_heads,
                                                           self.head_dim))
        self._build_shapes = {'query_shape': query_shape, 'value_shape': value_shape,
                              'key_shape': key_shape}
        self.built = True

    def call(self, query: Any, value: Any, key: Any = None, query_mask: Any = None,
             value_mask: Any = None, key_mask: Any = None, attention_mask: Any = None,
             return_attention_scores: bool = False, training: Any = None,
             use_causal_mask: bool = False) -> Any:
        value = self._cast_input(value)
        key = value if key is None else self._cast_input(key)
        self._build_from(query, value, key)
        mask = self._mask(query, value, attention_mask, query_mask, value_mask, key_mask,
                          use_causal_mask)
        q = self.query_dense(query)
        k = self.key_dense(key)
        v = self.value_dense(value)
        repeats = self.num_query_heads // self.num_key_value_heads
        if repeats > 1:  # head j of the keys serves query heads j*r .. j*r + r - 1
            k = F.repeat(k, repeats, axis=2)
            v = F.repeat(v, repeats, axis=2)
        out, scores = self._attend(q, k, v, mask, training, return_attention_scores)
        out = self.output_dense(out)
        return (out, scores) if return_attention_scores else out

    def get_config(self) -> dict:
        config = super().get_config()
        for key in ('num_heads', 'key_dim', 'value_dim', 'output_shape', 'attention_axes'):
            config.pop(key)
        config.update(head_dim=self.head_dim, num_query_heads=self.num_query_heads,
                      num_key_value_heads=self.num_key_value_heads)
        return config


GroupQueryAttention = GroupedQueryAttention


class Attention(Layer):
    """Dot-product (Luong-style) attention over ``[query, value]`` or ``[query, value, key]``.

    ``scores = query @ key^T`` (times a learned scalar ``scale`` with ``use_scale``), or with
    ``score_mode='concat'`` ``concat_score_weight * sum(tanh(scale * (q + k)), -1)``; then
    ``softmax(scores) @ value``.

    Args:
        use_scale: Learn a scalar that scales the scores.
        score_mode: ``'dot'`` or ``'concat'``.
        dropout: Dropout rate on the attention probabilities (training only).
        seed: Seed of the dropout's random generator.

    Call arguments:
        inputs: ``[query (B, Tq, dim), value (B, Tv, dim)]`` and optionally ``key``.
        mask: ``[query_mask (B, Tq), value_mask (B, Tv)]``: masked values get no weight;
            outputs at masked queries are zero.
        training: Apply dropout.
        return_attention_scores: Also return the probabilities ``(B, Tq, Tv)``.
        use_causal_mask: Position ``i`` attends only to positions ``j <= i``.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> q = np.array([[[1.0, 0.0]]], np.float32)
        >>> v = np.array([[[1.0, 0.0], [0.0, 1.0]]], np.float32)
        >>> out, w = keras.layers.Attention()([q, v], return_attention_scores=True)
        >>> np.round(w.array, 4)
        array([[[0.7311, 0.2689]]], dtype=float32)
    """

    def __init__(self, use_scale: bool = False, score_mode: str = 'dot', dropout: float = 0.0,
                 seed: Optional[int] = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if score_mode not in ('dot', 'concat'):
            raise ValueError(f'{type(self).__name__} "{self.name}": argument score_mode: '
                             f"expected 'dot' or 'concat', got {score_mode!r}")
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or \
                not 0 <= dropout < 1:
            raise ValueError(f'{type(self).__name__} "{self.name}": argument dropout: '
                             f'expected a float in [0, 1), got {dropout!r}')
        self.use_scale = bool(use_scale)
        self.score_mode = score_mode
        self.dropout = float(dropout)
        self.seed = seed
        self._rng = None if seed is None else numpy.random.default_rng(seed)
        self.scale: Optional[Parameter] = None
        self.concat_score_weight: Optional[Parameter] = None

    def _validate(self, inputs: Any, mask: Any = None) -> None:
        cls = type(self).__name__
        if not isinstance(inputs, (list, tuple)) or not 2 <= len(inputs) <= 3:
            raise ValueError(f'{cls} "{self.name}": expected inputs [query, value] or '
                             f'[query, value, key], got {inputs!r}')
        if mask is not None and (not isinstance(mask, (list, tuple)) or
                                 not 2 <= len(mask) <= 3):
            raise ValueError(f'{cls} "{self.name}": argument mask: expected [query_mask, '
                             f'value_mask], got {mask!r}')

    def build(self, input_shape: Any) -> None:
        self._validate(input_shape)
        if self.use_scale:
            self.scale = self.add_weight('scale', (), initializer='ones')
        if self.score_mode == 'concat':
            self.concat_score_weight = self.add_weight('concat_score_weight', (),
                                                       initializer='ones')
        self.built = True

    def _scores(self, query: Any, key: Any) -> Any:
        if self.score_mode == 'dot':
            scores = F.matmul(query, F.transpose(key, (0, 2, 1)))
            if self.scale is not None:
                scores = scores * F.broadcast_to(self.scale, scores.shape)
            return scores
        q = F.expand_dims(query, -2)
        k = F.expand_dims(key, -3)
        q, k = cast(tuple, F.broadcast(q, k))  # two arguments: a tuple of two
        s = q + k
        if self.scale is not None:
            s = s * F.broadcast_to(self.scale, s.shape)
        scores = F.sum(F.tanh(s), axis=-1)
        return scores * F.broadcast_to(self.concat_score_weight, scores.shape)

    def call(self, inputs: Any, mask: Any = None, training: Any = None,
             return_attention_scores: bool = False, use_causal_mask: bool = False) -> Any:
        self._validate(inputs, mask)
        inputs = [self._cast_input(x) for x in inputs]
        q, v = inputs[0], inputs[1]
        k = inputs[2] if len(inputs) > 2 else v
        q_mask = mask[0] if mask else None
        v_mask = mask[1] if mask else None
        scores = self._scores(q, k)
        xp = backend.get_array_module(scores.array)
        scores_mask = None
        if v_mask is not None:
            scores_mask = xp.asarray(_array(v_mask)).astype(bool)[..., None, :]
        if use_causal_mask:
            causal = xp.tril(xp.ones((1,) + scores.shape[-2:], dtype=bool))
            scores_mask = causal if scores_mask is None else xp.logical_and(scores_mask,
                                                                            causal)
        if scores_mask is not None:
            big = 65504.0 if scores.dtype == numpy.float16 else 1e9
            penalty = xp.broadcast_to(~scores_mask, scores.shape).astype(scores.dtype) * big
            scores = scores - penalty
        weights = F.softmax(scores, axis=-1)
        if training and self.dropout > 0:
            with chainlet.using_config('train', True):
                weights = F.dropout(weights, self.dropout, rng=self._rng)
        result = F.matmul(weights, v)
        if q_mask is not None:
            keep = xp.asarray(_array(q_mask)).astype(result.dtype)[..., None]
            result = result * xp.broadcast_to(keep, result.shape)
        return (result, weights) if return_attention_scores else result

    def compute_output_spec(self, inputs: Any, *args: Any,
                            return_attention_scores: bool = False, **kwargs: Any) -> Any:
        q, v = inputs[0], inputs[1]
        out = KerasTensor(tuple(q.shape[:-1]) + (v.shape[-1],), self._dtype)
        if return_attention_scores:
            return out, KerasTensor(tuple(q.shape[:-1]) + (v.shape[1],), self._dtype)
        return out

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return tuple(input_shape[0][:-1]) + (input_shape[1][-1],)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(use_scale=self.use_scale, score_mode=self.score_mode,
                      dropout=self.dropout, seed=self.seed)
        return config


class AdditiveAttention(Attention):
    """Additive (Bahdanau-style) attention:
    ``scores = sum(scale * tanh(query[:, :, None] + key[:, None]), -1)``, with a learned
    per-channel ``scale`` (``use_scale=True``, Glorot-uniform initialized) or without.

    Args:
        use_scale: Learn the per-channel scale.
        dropout: Dropout rate on the attention probabilities (training only).

    Call arguments are those of :class:`Attention`.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> q = np.zeros((1, 2, 3), np.float32)
        >>> v = np.ones((1, 4, 3), np.float32)
        >>> keras.layers.AdditiveAttention()([q, v]).shape
        (1, 2, 3)
    """

    def __init__(self, use_scale: bool = True, dropout: float = 0.0, **kwargs: Any) -> None:
        kwargs.pop('score_mode', None)
        super().__init__(use_scale=use_scale, dropout=dropout, **kwargs)

    def build(self, input_shape: Any) -> None:
        self._validate(input_shape)
        dim = input_shape[0][-1]
        if self.use_scale:
            self.scale = self.add_weight('scale', (dim,), initializer='glorot_uniform')
        self.built = True

    def _scores(self, query: Any, key: Any) -> Any:
        # two arguments: a tuple of two
        q, k = cast(tuple, F.broadcast(F.expand_dims(query, -2), F.expand_dims(key, -3)))
        t = F.tanh(q + k)
        if self.scale is not None:
            t = t * F.broadcast_to(self.scale, t.shape)
        return F.sum(t, axis=-1)

    def get_config(self) -> dict:
        config = super().get_config()
        config.pop('score_mode')
        return config


__all__ = ['AdditiveAttention', 'Attention', 'GroupQueryAttention', 'GroupedQueryAttention',
           'MultiHeadAttention']
