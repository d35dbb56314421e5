"""Core layers without weights: ``Activation``, ``Dropout``, ``Lambda``; and ``Embedding``."""
from __future__ import annotations

import math
from typing import Any, Callable, Optional, cast

import numpy

import chainlet
import chainlet.functions as F
from chainlet import Variable, backend
from chainlet.keras import activations, constraints, initializers, regularizers
from chainlet.keras.engine.base_layer import Layer
from chainlet.keras.engine.input_spec import InputSpec
from chainlet.keras.layers._utils import get_mask, normalize_data_format, set_mask


class Activation(Layer):
    """Applies an activation function to its input.

    Args:
        activation: Activation name (``'relu'``, ``'softmax'``, ...) or callable.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.Activation('relu')(np.array([[-1.0, 2.0]], np.float32)).array
        array([[0., 2.]], dtype=float32)
    """

    supports_masking = True  # keeps the time axis: an input mask passes through

    def __init__(self, activation: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.activation = activations.get(activation)

    def call(self, inputs: Any) -> Any:
        y = self.activation(inputs)
        set_mask(y, get_mask(inputs))
        return y

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict:
        config = super().get_config()
        config['activation'] = activations.serialize(self.activation)
        return config


class Dropout(Layer):
    """Sets input units to 0 with probability ``rate`` during training, scaling the others by
    ``1 / (1 - rate)``; the identity in inference (``training`` false or ``None``).

    Args:
        rate: Fraction of the units to drop, in ``[0, 1)``.
        noise_shape: Shape of the binary mask, broadcast to the input (``None`` entries take
            the input's size), e.g. ``(batch, 1, features)`` to drop the same features at every
            time step.
        seed: Seed of a private random generator; ``None`` draws from NumPy's global state.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> layer = keras.layers.Dropout(0.5, seed=0)
        >>> x = np.ones((2, 4), np.float32)
        >>> layer(x).array          # inference: unchanged
        array([[1., 1., 1., 1.],
               [1., 1., 1., 1.]], dtype=float32)
        >>> sorted(set(layer(x, training=True).array.ravel().tolist()))
        [0.0, 2.0]
    """

    def __init__(self, rate: float, noise_shape: Any = None, seed: Optional[int] = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate < 1:
            raise ValueError(f'Dropout "{self.name}": argument rate: expected a float in '
                             f'[0, 1), got {rate!r}')
        self.rate = float(rate)
        self.noise_shape = None if noise_shape is None else tuple(noise_shape)
        self.seed = seed
        self._rng = None if seed is None else numpy.random.default_rng(seed)

    def call(self, inputs: Any, training: Optional[bool] = None) -> Any:
        if not training or self.rate == 0:
            return inputs
        with chainlet.using_config('train', True):
            if self.noise_shape is None:
                y = F.dropout(inputs, self.rate, rng=self._rng)
            else:
                y = F.dropout(inputs, mask=self._mask(inputs))
        set_mask(y, get_mask(inputs))
        return y

    def _mask(self, x: Any) -> Any:
        noise_shape = cast(tuple, self.noise_shape)  # call() uses _mask only when it is set
        if len(noise_shape) != x.ndim:
            raise ValueError(f'Dropout "{self.name}": noise_shape {noise_shape} must have '
                             f'one entry per input axis; input shape {x.shape}')
        shape = tuple(d if n is None else n for n, d in zip(noise_shape, x.shape))
        rng = self._rng if self._rng is not None else numpy.random
        keep = rng.random(shape) >= self.rate
        mask = numpy.broadcast_to(keep / (1.0 - self.rate), x.shape).astype(x.dtype)
        return backend.get_array_module(x.array).asarray(mask)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(rate=self.rate, noise_shape=self.noise_shape, seed=self.seed)
        return config


class Lambda(Layer):
    """Wraps an arbitrary function of tensors as a layer.

    The function receives Variables (written with ``chainlet.functions`` or Variable operators)
    and must not create weights.

    Args:
        function: Callable applied to the inputs.
        output_shape: Output shape without the batch axis, or a callable mapping the input
            shape to the output shape; ``None`` infers it by running ``function`` on zeros.
        mask: Accepted for Keras compatibility (masks are not computed by this layer).
        arguments: Extra keyword arguments passed to ``function``.

    ``get_config`` stores the function's *name* only: a model with a ``Lambda`` layer can be
    rebuilt from its config only when that name is given in ``custom_objects``
    (``Lambda.from_config(config, custom_objects={'double': double})``). Anonymous lambdas
    (``'<lambda>'``) cannot be rebuilt; write a ``def`` or a ``Layer`` subclass instead.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> layer = keras.layers.Lambda(lambda x: x * 2)
        >>> layer(np.array([[1.0, 2.0]], np.float32)).array
        array([[2., 4.]], dtype=float32)
    """

    def __init__(self, function: Callable[..., Any], output_shape: Any = None, mask: Any = None,
                 arguments: Optional[dict] = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not callable(function):
            raise TypeError(f'Lambda "{self.name}": argument function: expected a callable, '
                            f'got {type(function).__name__}')
        self.function = function
        self._output_shape = output_shape
        self.mask = mask
        self.arguments = dict(arguments or {})

    def call(self, inputs: Any) -> Any:
        return self.function(inputs, **self.arguments)

    def compute_output_spec(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        if self._output_shape is None:
            # Inference keeps the input dtypes, which matters for integer inputs.
            return self._infer_output_spec(inputs, args, kwargs)
        return super().compute_output_spec(inputs, *args, **kwargs)

    def compute_output_shape(self, input_shape: Any) -> Any:
        if self._output_shape is None:
            return super().compute_output_shape(input_shape)
        if callable(self._output_shape):
            return self._output_shape(input_shape)
        first = input_shape[0] if input_shape and isinstance(input_shape[0], tuple) \
            else input_shape
        batch = first[0] if first else None
        return (batch,) + tuple(self._output_shape)

    def get_config(self) -> dict:
        config = super().get_config()
        shape = self._output_shape
        config.update(function=getattr(self.function, '__name__', repr(self.function)),
                      output_shape=None if shape is None or callable(shape) else list(shape),
                      arguments=self.arguments)
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects: Optional[dict] = None) -> 'Lambda':
        config = dict(config)
        function = config.pop('function')
        if isinstance(function, str):
            found = (custom_objects or {}).get(function)
            if found is None:
                raise ValueError(f'Lambda "{config.get("name")}": cannot rebuild the function '
                                 f'{function!r} from its name; pass it in custom_objects, e.g. '
                                 f'custom_objects={{{function!r}: {function}}}')
            function = found
        if config.get('output_shape') is not None:
            config['output_shape'] = tuple(config['output_shape'])
        return cls(function, **config)


class Embedding(Layer):
    """Turns non-negative integer indices into dense vectors: ``embeddings[inputs]``.

    Args:
        input_dim: Vocabulary size (largest index + 1).
        output_dim: Size of each vector.
        embeddings_initializer: Initializer of the ``(input_dim, output_dim)`` matrix
            (``'uniform'``: U(-0.05, 0.05)).
        embeddings_regularizer, embeddings_constraint: Optional regularizer and constraint.
        mask_zero: Treat index 0 as padding: the output carries a mask that the recurrent
            layers and ``GlobalAveragePooling1D`` downstream honour. ``input_dim`` must then
            count index 0.
        weights: Optional list holding an initial ``(input_dim, output_dim)`` matrix.
        input_length: Keras 2 argument, accepted and only kept in the config.

    Shape:
        ``(batch, ...)`` integers -> ``(batch, ..., output_dim)``. Float inputs are truncated to
        integers (as Keras casts them).

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> layer = keras.layers.Embedding(10, 3)
        >>> layer(np.array([[1, 2, 0]])).shape
        (1, 3, 3)
    """

    def __init__(self, input_dim: int, output_dim: int,
                 embeddings_initializer: Any = 'uniform', embeddings_regularizer: Any = None,
                 embeddings_constraint: Any = None, mask_zero: bool = False,
                 weights: Any = None, input_length: Optional[int] = None,
                 **kwargs: Any) -> None:
        kwargs.pop('lora_rank', None)
        super().__init__(**kwargs)
        for arg, value in (('input_dim', input_dim), ('output_dim', output_dim)):
            if isinstance(value, bool) or not isinstance(value, (int, numpy.integer)) \
                    or value <= 0:
                raise ValueError(f'Embedding "{self.name}": argument {arg}: expected a positive '
                                 f'int, got {value!r}')
        self.input_dim, self.output_dim = int(input_dim), int(output_dim)
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = constraints.get(embeddings_constraint)
        self.mask_zero = bool(mask_zero)
        self.input_length = input_length
        self._initial_weights = weights

    def build(self, input_shape: Any) -> None:
        self.embeddings = self.add_weight('embeddings', (self.input_dim, self.output_dim),
                                          initializer=self.embeddings_initializer,
                                          regularizer=self.embeddings_regularizer,
                                          constraint=self.embeddings_constraint)
        self.built = True
        if self._initial_weights is not None:
            self.set_weights(self._initial_weights)
            self._initial_weights = None

    def call(self, inputs: Any) -> Any:
        ids = inputs.array if isinstance(inputs, Variable) else inputs
        if numpy.dtype(ids.dtype).kind != 'i':
            if numpy.dtype(ids.dtype).kind not in 'uf':
                raise TypeError(f'Embedding "{self.name}": expected integer indices, got dtype '
                                f'{ids.dtype}')
            ids = ids.astype(numpy.int32)
        if ids.size and (int(ids.min()) < 0 or int(ids.max()) >= self.input_dim):
            raise ValueError(f'Embedding "{self.name}": indices must be in [0, {self.input_dim})'
                             f', got values in [{int(ids.min())}, {int(ids.max())}]')
        y = F.embed_id(ids, self.embeddings)
        if self.mask_zero:
            set_mask(y, ids != 0)
        return y

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """The padding mask ``inputs != 0`` when ``mask_zero``, else ``None``."""
        if not self.mask_zero:
            return None
        ids = inputs.array if isinstance(inputs, Variable) else inputs
        return ids != 0

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return tuple(input_shape) + (self.output_dim,)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(
            input_dim=self.input_dim, output_dim=self.output_dim,
            embeddings_initializer=initializers.serialize(self.embeddings_initializer),
            embeddings_regularizer=regularizers.serialize(self.embeddings_regularizer),
            mask_zero=self.mask_zero)
        if self.input_length is not None:
            config['input_length'] = self.input_length
        return config


def _prod(values: Any) -> Optional[int]:
    values = tuple(values)
    return None if any(v is None for v in values) else math.prod(values)


class Flatten(Layer):
    """Flattens every axis but the batch axis.

    Args:
        data_format: ``'channels_first'`` moves the channel axis last before flattening, so the
            element order matches a channels_last model.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.Flatten()(np.zeros((2, 3, 4), np.float32)).shape
        (2, 12)
    """

    def __init__(self, data_format: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = normalize_data_format(data_format, f'Flatten "{self.name}"')
        self.input_spec = InputSpec(min_ndim=1)

    def call(self, inputs: Any) -> Any:
        x = inputs
        if self.data_format == 'channels_first' and x.ndim >= 3:
            x = F.moveaxis(x, 1, -1)
        return F.reshape(x, (x.shape[0], -1))

    def compute_output_shape(self, input_shape: Any) -> tuple:
        if len(input_shape) == 1:
            return (input_shape[0], 1)
        return (input_shape[0], _prod(input_shape[1:]))

    def get_config(self) -> dict:
        config = super().get_config()
        config['data_format'] = self.data_format
        return config


class Reshape(Layer):
    """Reshapes to ``(batch,) + target_shape``; one entry of ``target_shape`` may be ``-1``.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.Reshape((3, -1))(np.zeros((2, 12), np.float32)).shape
        (2, 3, 4)
    """

    def __init__(self, target_shape: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.target_shape = tuple(int(d) for d in target_shape)
        if sum(d == -1 for d in self.target_shape) > 1 or \
                any(d < -1 or d == 0 for d in self.target_shape):
            raise ValueError(f'Reshape "{self.name}": argument target_shape: expected positive '
                             f'sizes and at most one -1, got {target_shape!r}')

    def _resolve(self, input_shape: tuple) -> tuple:
        size = _prod(input_shape[1:])
        known = math.prod(d for d in self.target_shape if d != -1)
        if -1 in self.target_shape:
            if size is None:
                return tuple(None if d == -1 else d for d in self.target_shape)
            if size % known:
                raise ValueError(f'Reshape "{self.name}": cannot reshape input of shape '
                                 f'{input_shape} ({size} values per sample) to '
                                 f'{self.target_shape}')
            return tuple(size // known if d == -1 else d for d in self.target_shape)
        if size is not None and size != known:
            raise ValueError(f'Reshape "{self.name}": total size of the new shape '
                             f'{self.target_shape} ({known}) must equal the size of the input '
                             f'{input_shape[1:]} ({size})')
        return self.target_shape

    def call(self, inputs: Any) -> Any:
        shape = self._resolve(tuple(inputs.shape))
        return F.reshape(inputs, (inputs.shape[0],) + shape)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (input_shape[0],) + self._resolve(tuple(input_shape))

    def get_config(self) -> dict:
        config = super().get_config()
        config['target_shape'] = self.target_shape
        return config


class Permute(Layer):
    """Permutes the non-batch axes; ``dims`` counts from 1 (``(2, 1)`` swaps axes 1 and 2).

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.Permute((2, 1))(np.zeros((2, 3, 4), np.float32)).shape
        (2, 4, 3)
    """

    def __init__(self, dims: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.dims = tuple(int(d) for d in dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(f'Permute "{self.name}": argument dims: expected a permutation of '
                             f'1..{len(self.dims)}, got {dims!r}')
        self.input_spec = InputSpec(ndim=len(self.dims) + 1)

    def call(self, inputs: Any) -> Any:
        return F.transpose(inputs, (0,) + self.dims)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (input_shape[0],) + tuple(input_shape[d] for d in self.dims)

    def get_config(self) -> dict:
        config = super().get_config()
        config['dims'] = self.dims
        return config


class RepeatVector(Layer):
    """Repeats a ``(batch, features)`` input ``n`` times: ``(batch, n, features)``.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.RepeatVector(3)(np.zeros((2, 4), np.float32)).shape
        (2, 3, 4)
    """

    def __init__(self, n: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(n, bool) or not isinstance(n, (int, numpy.integer)) or n <= 0:
            raise ValueError(f'RepeatVector "{self.name}": argument n: expected a positive int, '
                             f'got {n!r}')
        self.n = int(n)
        self.input_spec = InputSpec(ndim=2)

    def call(self, inputs: Any) -> Any:
        b, f = inputs.shape
        return F.broadcast_to(F.expand_dims(inputs, 1), (b, self.n, f))

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (input_shape[0], self.n, input_shape[1])

    def get_config(self) -> dict:
        config = super().get_config()
        config['n'] = self.n
        return config
