"""scikit-learn's bundled 8x8 digits: a small offline dataset for examples and tests."""
from __future__ import annotations

import numbers
from typing import Any

import numpy

from chainlet.datasets import _loader
from chainlet.datasets.tuple_dataset import TupleDataset


def get_digits(withlabel: bool = True, ndim: int = 1, scale: float = 1., dtype: Any = None,
               test_ratio: float = 0.2, seed: int | None = 0) -> tuple:
    """Return scikit-learn's 1,797 handwritten 8x8 digits, split into ``(train, test)``.

    Nothing is downloaded: the data ships with scikit-learn (``pip install
    "chainlet-dl[examples]"``). Pixel values ``0..16`` are scaled to ``[0, scale]``.

    Args:
        withlabel: Return :class:`TupleDataset` of ``(image, label)`` (labels int32);
            otherwise the image arrays alone.
        ndim: 1 gives images of shape ``(64,)``, 2 gives ``(8, 8)``, 3 gives ``(1, 8, 8)``.
        scale: Upper end of the pixel range.
        dtype: Floating type of the images; ``None`` means ``chainlet.config.dtype`` if set,
            else float32.
        test_ratio: Fraction of the examples that go to ``test``, ``0 < test_ratio < 1``
            (rounded to a whole number of examples).
        seed: Seed of the ``numpy.random.RandomState`` that shuffles before splitting.

    Returns:
        ``(train, test)``.

    Example:
        >>> import importlib.util
        >>> from chainlet.datasets import get_digits
        >>> if importlib.util.find_spec('sklearn'):  # runs where scikit-learn is installed
        ...     train, test = get_digits()
        ...     x, t = train[0]
        ...     assert (len(train), len(test)) == (1438, 359)
        ...     assert x.shape == (64,) and x.dtype == 'float32' and 0 <= t <= 9
    """
    _loader.check_choice('get_digits', 'ndim', ndim, (1, 2, 3))
    if not isinstance(test_ratio, numbers.Real) or not 0 < test_ratio < 1:
        raise ValueError(f'get_digits: test_ratio must be a number in (0, 1), got '
                         f'{test_ratio!r}')
    dtype = _loader.resolve_dtype(dtype)
    try:
        from sklearn.datasets import load_digits
    except ImportError as e:
        raise ImportError('get_digits needs scikit-learn; install it with '
                          'pip install "chainlet-dl[examples]"') from e
    data = load_digits()
    images = numpy.asarray(data.data)
    labels = numpy.asarray(data.target, dtype=numpy.int32)
    n = len(images)
    images = images.reshape({1: (n, 64), 2: (n, 8, 8), 3: (n, 1, 8, 8)}[ndim])
    images = _loader.scale_images(images, dtype, scale, 16.)
    order = numpy.random.RandomState(seed).permutation(n)
    n_test = int(round(n * test_ratio))
    if not 0 < n_test < n:
        raise ValueError(f'get_digits: test_ratio={test_ratio} leaves an empty split')
    train_index, test_index = order[n_test:], order[:n_test]

    def part(index: numpy.ndarray) -> Any:
        if withlabel:
            return TupleDataset(images[index], labels[index])
        return images[index]

    return part(train_index), part(test_index)
