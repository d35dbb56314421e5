"""``transform`` and ``transform_batch``: views whose columns a function computes.

Design: the source's examples (or whole columns, for the batch variant) are spread into the
function as positional arguments (mode ``tuple`` or ``None``) or keyword arguments (mode
``dict``). The type of what the function returns (tuple, dict, anything else for one bare
value) is the view's :attr:`mode`; it is learnt from the first call (``mode`` asks for row 0
when nothing was read yet) and must not change afterwards.
"""
from __future__ import annotations

from typing import Any, Callable

from chainlet.dataset.tabular import tabular_dataset


def _mode_of(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple
    if isinstance(value, dict):
        return dict
    return None


class _TransformBase(tabular_dataset.TabularDataset):

    _what = 'transform'

    def __init__(self, dataset: tabular_dataset.TabularDataset, keys: Any,
                 function: Callable[..., Any]) -> None:
        if not callable(function):
            raise TypeError(f'{self._what}: expected a callable, got '
                            f'{type(function).__name__}')
        self._dataset = dataset
        self._keys = keys if isinstance(keys, tuple) else (keys,)
        self._function = function
        self._mode_known = False
        self._mode: Any = None

    def __len__(self) -> int:
        return len(self._dataset)

    @property
    def keys(self) -> tuple:
        return self._keys

    @property
    def mode(self) -> Any:
        if not self._mode_known:
            if len(self) == 0:
                # Nothing to call the function on: present the (no) examples as tuples.
                return tuple
            self.get_examples([0], None)
        return self._mode

    def convert(self, data: Any) -> Any:
        return self._dataset.convert(data)

    def _call(self, values: Any) -> Any:
        if self._dataset.mode is dict:
            return self._function(**dict(zip(self._dataset.keys, values)))
        return self._function(*values)

    def _columns_of(self, out: Any) -> tuple:
        """Check the return type against earlier calls; give the outputs in key order."""
        mode = _mode_of(out)
        if self._mode_known and mode is not self._mode:
            raise ValueError(f'{self._what} must not change its return type: it returned '
                             f'{getattr(mode, "__name__", "a bare value")} after '
                             f'{getattr(self._mode, "__name__", "a bare value")}')
        self._mode, self._mode_known = mode, True
        if mode is tuple:
            return out
        if mode is dict:
            try:
                return tuple(out[key] for key in self._keys)
            except KeyError as e:
                raise KeyError(f'{self._what} returned a dict without key {e.args[0]!r} '
                               f'(keys {self._keys})') from None
        return (out,)


class _Transform(_TransformBase):

    def get_examples(self, indices: Any, key_indices: Any) -> tuple:
        if key_indices is None:
            key_indices = range(len(self._keys))
        out_cols: tuple = tuple([] for _ in key_indices)
        for values in zip(*self._dataset.get_examples(indices, None)):
            outputs = self._columns_of(self._call(values))
            for col, k in zip(out_cols, key_indices):
                col.append(outputs[k])
        return out_cols


class _TransformBatch(_TransformBase):

    _what = 'transform_batch'

    def get_examples(self, indices: Any, key_indices: Any) -> tuple:
        if indices is None:
            length = len(self)
        elif isinstance(indices, slice):
            length = len(range(*indices.indices(len(self))))
        else:
            length = len(indices)
        if key_indices is None:
            key_indices = range(len(self._keys))
        outputs = self._columns_of(self._call(self._dataset.get_examples(indices, None)))
        if any(len(col) != length for col in outputs):
            raise ValueError(f'transform_batch must not change the length of data: '
                             f'{length} rows in, {[len(c) for c in outputs]} out')
        return tuple(outputs[k] for k in key_indices)
