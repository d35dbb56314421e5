"""``Classifier``: wraps a predictor with a loss and an accuracy that it reports."""
from __future__ import annotations

from typing import Any, Callable, Union

from chainlet.functions.evaluation.accuracy import accuracy
from chainlet.functions.loss.softmax_cross_entropy import softmax_cross_entropy
from chainlet.link import Chain, Link
from chainlet.variable import Variable


class Classifier(Chain):
    """A chain computing the loss (and accuracy) of a classifier ``predictor``.

    Calling it with ``(*inputs, t)`` runs ``y = predictor(*inputs)``, ``loss = lossfun(y, t)``
    and, when :attr:`compute_accuracy` is true, ``accuracy = accfun(y, t)``; it keeps them as
    :attr:`y`, :attr:`loss` and :attr:`accuracy`, reports ``{'loss': ..., 'accuracy': ...}`` to
    the current :mod:`chainlet.reporter` (prefixed by this link's observer name) and returns the
    loss, ready for ``loss.backward()`` or ``optimizer.update(model, x, t)``.

    Args:
        predictor: The link (or callable) that computes the scores.
        lossfun: Loss function ``lossfun(y, t)``; default softmax cross entropy.
        accfun: Accuracy function ``accfun(y, t)``; default :func:`chainlet.functions.accuracy`.
        label_key: Where the label is among the call's arguments: an int position (default
            the last one) or the name of a keyword argument.

    Attributes:
        compute_accuracy: Compute and report the accuracy (default ``True``).

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> from chainlet.reporter import Reporter
        >>> model = L.Classifier(L.Linear(3, 2, initialW=np.eye(2, 3, dtype=np.float32)))
        >>> x = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], np.float32)
        >>> t = np.array([0, 0], np.int32)
        >>> reporter = Reporter()
        >>> reporter.add_observer('main', model)
        >>> observation = {}
        >>> with reporter.scope(observation):
        ...     loss = model(x, t)
        >>> sorted(observation)
        ['main/accuracy', 'main/loss']
        >>> float(model.accuracy.array)
        0.5
    """

    compute_accuracy = True

    def __init__(self, predictor: Union[Link, Callable[..., Any]],
                 lossfun: Callable[..., Variable] = softmax_cross_entropy,
                 accfun: Callable[..., Variable] = accuracy,
                 label_key: Union[int, str] = -1) -> None:
        if isinstance(label_key, bool) or not isinstance(label_key, (int, str)):
            raise TypeError(f'Classifier: label_key must be int or str, but is '
                            f'{type(label_key).__name__}')
        super().__init__()
        self.lossfun = lossfun
        self.accfun = accfun
        # The last call's prediction, loss and accuracy (Variables; None before a call).
        self.y: Any = None
        self.loss: Any = None
        self.accuracy: Any = None
        self.label_key = label_key
        with self.init_scope():
            self.predictor = predictor

    def forward(self, *args: Any, **kwargs: Any) -> Variable:
        """Compute the loss of ``predictor(*args, **kwargs)`` against the label.

        Returns:
            The loss Variable.
        """
        from chainlet import reporter
        if isinstance(self.label_key, int):
            if not -len(args) <= self.label_key < len(args):
                raise ValueError(f'Classifier: Label key {self.label_key} is out of range for '
                                 f'{len(args)} positional arguments')
            t = args[self.label_key]
            index = self.label_key % len(args)
            args = args[:index] + args[index + 1:]
        else:
            if self.label_key not in kwargs:
                raise ValueError(f'Classifier: Label key {self.label_key!r} is not among the '
                                 f'keyword arguments {sorted(kwargs)}')
            t = kwargs.pop(self.label_key)
        self.y = None
        self.loss = None
        self.accuracy = None
        self.y = self.predictor(*args, **kwargs)
        self.loss = self.lossfun(self.y, t)
        reporter.report({'loss': self.loss}, self)
        if self.compute_accuracy:
            self.accuracy = self.accfun(self.y, t)
            reporter.report({'accuracy': self.accuracy}, self)
        return self.loss
