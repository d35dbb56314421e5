"""Every fast first-order backward (``_backward_arrays``) gives exactly ``backward``'s bits.

The classes are found, not listed: every :class:`FunctionNode` subclass of the library whose
first-order backward may take the array path (``cls._use_backward_arrays``) is checked against
its ``backward`` on Variables, for each gradient subset, float16/32/64, and the shapes its
generator below builds (broadcasting, 0-d and empty where the function allows them). A class
with a fast path and no generator fails :func:`test_every_fast_path_is_checked`: add one to
:data:`GENERATORS` (class name -> cases) when you add a ``_backward_arrays``.

Each case is checked twice: node by node (``node.backward`` under ``no_backprop_mode`` against
``node._backward_arrays`` on the same output gradients, which must not be written to), and
through the engine (``backward`` with and without an active function hook, which forces the
Variable path).
"""
import importlib
import itertools
import pathlib
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
import chainlet.keras.ops  # noqa: F401 - defines FunctionNodes of its own
import chainlet.links  # noqa: F401
from chainlet.function_hooks import FunctionHook
from chainlet.function_node import FunctionNode
from chainlet.functions.activation.tanh import TanhGrad
from chainlet.functions.math.basic_math import PowVarConstGrad

_DTYPES = (np.float16, np.float32, np.float64)


def _import_modules_defining_fast_paths() -> None:
    """Import every chainlet module whose source defines a ``_backward_arrays``, so that a
    fast path in a module that nothing imports at start-up is found too."""
    root = pathlib.Path(chainlet.__file__).parent
    for path in sorted(root.rglob('*.py')):
        if 'def _backward_arrays' in path.read_text(encoding='utf-8'):
            parts = path.relative_to(root.parent).with_suffix('').parts
            if parts[-1] == '__init__':
                parts = parts[:-1]
            importlib.import_module('.'.join(parts))


def fast_path_classes(root: type = FunctionNode, prefix: str = 'chainlet.') -> list:
    """The subclasses of ``root`` defined in modules under ``prefix`` whose first-order
    backward may run ``_backward_arrays`` (what the scheduler reads), sorted by name."""
    found: set = set()
    todo = [root]
    while todo:
        for sub in type.__subclasses__(todo.pop()):
            if sub not in found:
                found.add(sub)
                todo.append(sub)
    return sorted((c for c in found if c._use_backward_arrays and
                   c.__module__.startswith(prefix)), key=lambda c: c.__qualname__)


def unchecked(classes: Sequence[type], generators: dict) -> list:
    """One message per class in ``classes`` that has no entry in ``generators``."""
    return [f'{c.__module__}.{c.__qualname__} defines a fast first-order backward '
            f'(_backward_arrays) but {__name__} has no input generator for it: add '
            f'{c.__name__!r} to GENERATORS there' for c in classes if c.__name__ not in generators]


def _uniform(rng: Any, shape: tuple) -> Any:
    return rng.uniform(-1, 1, shape)


def _positive(rng: Any, shape: tuple) -> Any:
    return rng.uniform(0.5, 2, shape)


def _nonzero(rng: Any, shape: tuple) -> Any:
    return rng.uniform(0.5, 2, shape) * rng.choice([-1, 1], shape)


def _with_zeros(rng: Any, shape: tuple) -> Any:
    return rng.randint(-2, 3, shape) * 0.5  # exact zeros: the kink of relu, 0 ** c


class Case(NamedTuple):
    """``apply(*xs)`` gives the output Variable(s) of one node of the class under test, made
    from Variables of ``shapes`` (drawn by ``sample``) in the dtype under test."""
    apply: Callable
    shapes: tuple
    sample: Callable = _uniform


def _cases(apply: Callable, *shape_lists: Sequence[tuple], sample: Callable = _uniform) -> list:
    return [Case(apply, tuple(shapes), sample) for shapes in shape_lists]


_UNARY_SHAPES = ([(3, 2)], [()], [(0, 3)], [(5000,)])  # 5000: the in-place branches
_BINARY_SHAPES = ([(3, 2), (3, 2)], [(3, 2), (2,)], [(3, 1), (1, 2)], [(), (3,)],
                  [(2, 3), ()], [(0, 3), (3,)], [(), ()], [(1, 0), (2, 1)])


def _sce(**kwargs: Any) -> Callable:
    def apply(x: Any) -> Any:
        labels = np.array([0, 2, 1, -1, 2, 0][:x.shape[0]] if x.ndim == 2 else
                          [[0, 2], [1, -1]][:x.shape[0]], np.int32)
        labels[labels == -1] = kwargs.get('ignore_label', -1)
        return F.softmax_cross_entropy(x, labels, **kwargs)
    return apply


GENERATORS: dict = {
    'Tanh': _cases(F.tanh, *_UNARY_SHAPES),
    'TanhGrad': _cases(lambda y, gy: TanhGrad().apply((y, gy)),
                       *[s * 2 for s in _UNARY_SHAPES]),
    'Exp': _cases(F.exp, *_UNARY_SHAPES),
    'ReLU': _cases(F.relu, *_UNARY_SHAPES, sample=_with_zeros),
    'Neg': _cases(lambda x: -x, *_UNARY_SHAPES),
    'Add': _cases(lambda x, y: x + y, *_BINARY_SHAPES),
    'Sub': _cases(lambda x, y: x - y, *_BINARY_SHAPES),
    'Mul': _cases(lambda x, y: x * y, *_BINARY_SHAPES),
    'AddConstant': _cases(lambda x: x + 2.5, *_UNARY_SHAPES) +
    _cases(lambda x: 3 + x, [(2,)]),
    'SubFromConstant': _cases(lambda x: 2.5 - x, *_UNARY_SHAPES),
    'MulConstant': _cases(lambda x: x * 2.5, *_UNARY_SHAPES) +
    _cases(lambda x: -3 * x, [(3, 2)], [()]),
    'PowVarConst': [case for c in (1, 2, 3, 4) for case in
                    _cases(lambda x, c=c: x ** c, *_UNARY_SHAPES, sample=_with_zeros)] +
    [case for c in (-1, -2) for case in
     _cases(lambda x, c=c: x ** c, [(3, 2)], [()], [(0,)], sample=_nonzero)] +
    [case for c in (0.5, 2.5, -1.5) for case in
     _cases(lambda x, c=c: x ** c, [(3, 2)], [()], [(0,)], sample=_positive)],
    'PowVarConstGrad': [case for c in (1, 2, 3, 4) for case in
                        _cases(lambda x, gy, c=c: PowVarConstGrad(c).apply((x, gy)),
                               [(3, 2), (3, 2)], [(), ()], [(0,), (0,)], sample=_with_zeros)] +
    [case for c in (0.5, 2.5) for case in
     _cases(lambda x, gy, c=c: PowVarConstGrad(c).apply((x, gy)), [(3, 2), (3, 2)], [(), ()],
            sample=_positive)],
    'Sum': _cases(F.sum, [(3, 2)], [()], [(0, 3)], [(5000,)]) +
    _cases(lambda x: F.sum(x, axis=1), [(3, 2)], [(0, 3)]) +
    _cases(lambda x: F.sum(x, axis=(0, 2)), [(2, 3, 4)]) +
    _cases(lambda x: F.sum(x, axis=-1, keepdims=True), [(3, 2)], [(3, 0)]) +
    _cases(lambda x: F.sum(x, keepdims=True), [(3, 2)]),
    'Mean': _cases(F.mean, [(3, 2)], [()], [(0, 3)], [(5000,)]) +
    _cases(lambda x: F.mean(x, axis=0), [(3, 2)], [(0, 3)]) +
    _cases(lambda x: F.mean(x, axis=(0, 2), keepdims=True), [(2, 3, 4)]),
    'BroadcastTo': _cases(lambda x: F.broadcast_to(x, (4, 3, 2)), [(3, 1)], [()], [(2,)]) +
    _cases(lambda x: F.broadcast_to(x, (2, 0)), [(1,)], [(2, 1)]),
    'SumTo': _cases(lambda x: F.sum_to(x, (1, 2)), [(3, 2)]) +
    _cases(lambda x: F.sum_to(x, (2,)), [(3, 2)], [(4, 3, 2)]) +
    _cases(lambda x: F.sum_to(x, (3, 1)), [(4, 3, 2)]) +
    _cases(lambda x: F.sum_to(x, ()), [(3, 2)]) +
    _cases(lambda x: F.sum_to(x, (1, 3)), [(0, 3)]),
    'Reshape': _cases(lambda x: F.reshape(x, (2, -1)), [(3, 2)], [(2, 0)]) +
    _cases(lambda x: F.reshape(x, (1, 1)), [()]) +
    _cases(lambda x: F.reshape(x, ()), [(1,)]) +
    _cases(lambda x: F.reshape(x, (-1,)), [(2, 3, 4)]),
    'LinearFunction': _cases(F.linear, [(4, 3), (2, 3)], [(0, 3), (2, 3)], [(4, 3), (0, 3)],
                             [(4, 0), (2, 0)]) +
    _cases(F.linear, [(4, 3), (2, 3), (2,)], [(0, 3), (2, 3), (2,)], [(1, 3), (5, 3), (5,)]) +
    _cases(lambda x, W: F.linear(x, F.cast(W, np.float64)), [(4, 3), (2, 3)]),
    'SoftmaxCrossEntropy': _cases(_sce(), [(4, 3)], [(2, 3, 2)], [(1, 3)]) +
    _cases(_sce(reduce='no'), [(4, 3)], [(2, 3, 2)], [(0, 3)]) +
    _cases(_sce(normalize=False, cache_score=False), [(4, 3)], [(2, 3, 2)]) +
    _cases(_sce(class_weight=np.array([1.0, 2.0, 0.5], np.float32)), [(6, 3)]) +
    _cases(_sce(class_weight=np.array([1.0, 2.0, 0.5]), reduce='no', ignore_label=1),
           [(6, 3)]),
}


_import_modules_defining_fast_paths()
_FAST = fast_path_classes()


def _same_bits(what: str, fast: Any, slow: Any) -> None:
    assert fast.dtype == slow.dtype and fast.shape == slow.shape, (
        f'{what}: fast path gives {fast.dtype}{fast.shape}, backward {slow.dtype}{slow.shape}')
    np.testing.assert_array_equal(fast, slow, err_msg=what)
    assert fast.tobytes() == slow.tobytes(), f'{what}: equal values, other bits (zero signs?)'


def _per_target(gxs: Sequence, indexes: tuple, n_inputs: int) -> list:
    # A backward may give one gradient per input instead of one per target (the engine's rule).
    gxs = list(gxs)
    if len(gxs) == n_inputs != len(indexes):
        gxs = [gxs[i] for i in indexes]
    assert len(gxs) == len(indexes)
    return gxs


def _grad_output_sets(rng: Any, outputs: tuple) -> list:
    """Output gradients to try: fresh arrays, then read-only broadcast views (what a sum's
    gradient hands on); with several outputs, each alone (the others ``None``) as well."""
    fresh = tuple(np.asarray(rng.uniform(-1, 1, y.shape), y.dtype) for y in outputs)
    views = tuple(np.broadcast_to(rng.uniform(-1, 1, y.shape[-1:]).astype(y.dtype), y.shape)
                  for y in outputs)
    sets = [fresh, views]
    if len(outputs) > 1:
        sets += [tuple(g if j == k else None for j, g in enumerate(fresh))
                 for k in range(len(outputs))]
    return sets


def _check_node(node: FunctionNode, indexes: tuple, gys: tuple, what: str) -> None:
    before = [None if g is None else g.copy() for g in gys]
    with chainlet.no_backprop_mode():
        slow = node.backward(indexes, tuple(
            None if g is None else chainlet.Variable(g, requires_grad=False) for g in gys))
    fast = node._backward_arrays(indexes, gys)
    for g, b in zip(gys, before):
        assert g is None or g.tobytes() == b.tobytes(), f'{what}: an output gradient changed'
    n_inputs = len(node.inputs)
    slow, fast = _per_target(slow, indexes, n_inputs), _per_target(fast, indexes, n_inputs)
    for i, s, f in zip(indexes, slow, fast):
        where = f'{what}, gradient of input {i}'
        if s is None or f is None:
            assert s is None and f is None, f'{where}: only one path gives None'
            continue
        s = s.array if isinstance(s, chainlet.Variable) else np.asarray(s)
        f = np.asarray(f)
        assert f.dtype == node.inputs[i].dtype, where
        _same_bits(where, f, s)


class _Observer(FunctionHook):
    name = 'FastPathObserver'


def _engine_grads(case: Case, arrays: list, gys: tuple, hooked: bool) -> list:
    xs = [chainlet.Variable(a.copy()) for a in arrays]
    outputs = case.apply(*xs)
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    grads = [None if g is None else chainlet.Variable(g.copy()) for g in gys]
    if hooked:  # an active hook must see every function: backward takes the Variable path
        with _Observer():
            chainlet.backward(list(outputs), grads)
    else:
        chainlet.backward(list(outputs), grads)
    return [x.grad for x in xs]


def _check_case(cls: type, case: Case, dtype: Any) -> None:
    rng = np.random.RandomState(0)
    arrays = [np.asarray(case.sample(rng, s), dtype) for s in case.shapes]
    xs = [chainlet.Variable(a) for a in arrays]
    outputs = case.apply(*xs)
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    node = outputs[0].creator
    what = f'{cls.__name__}, inputs {case.shapes} {np.dtype(dtype).name}'
    assert type(node) is cls, f'{what}: the generator applied {type(node).__name__}'
    targets = [i for i, n in enumerate(node.inputs) if n.requires_grad]
    assert targets, f'{what}: no input needs a gradient'
    gy_sets = _grad_output_sets(rng, outputs)
    for size in range(1, len(targets) + 1):
        for indexes in itertools.combinations(targets, size):
            for k, gys in enumerate(gy_sets):
                _check_node(node, indexes, gys, f'{what}, targets {indexes}, gy set {k}')
    fast = _engine_grads(case, arrays, gy_sets[0], hooked=False)
    slow = _engine_grads(case, arrays, gy_sets[0], hooked=True)
    for i, (f, s) in enumerate(zip(fast, slow)):
        assert (f is None) == (s is None), f'{what}: engine, leaf {i}'
        if f is not None:
            _same_bits(f'{what}: engine, leaf {i}', f, s)


def test_every_fast_path_is_checked():
    missing = unchecked(_FAST, GENERATORS)
    assert not missing, '\n'.join(missing)
    stale = sorted(set(GENERATORS) - {c.__name__ for c in _FAST})
    assert not stale, f'generators for classes without a fast path (remove them): {stale}'


@pytest.mark.parametrize('dtype', _DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize('cls', _FAST, ids=lambda c: c.__name__)
def test_fast_path_gives_the_bits_of_backward(cls, dtype):
    cases = GENERATORS.get(cls.__name__)
    if cases is None:
        pytest.fail('\n'.join(unchecked([cls], GENERATORS)))
    for case in cases:
        _check_case(cls, case, dtype)


def test_the_search_finds_the_library_fast_paths():
    names = {c.__name__ for c in _FAST}
    assert {'Tanh', 'Add', 'Mul', 'Sum', 'Mean', 'LinearFunction', 'SoftmaxCrossEntropy',
            'PowVarConstGrad'} <= names
    assert len(names) == len(_FAST), 'two fast-path classes share a name: key GENERATORS apart'


def test_a_new_fast_path_without_a_generator_is_reported():
    class _Base(FunctionNode):
        pass

    class _Plain(_Base):  # backward only: no fast path, nothing to check
        def backward(self, indexes, grad_outputs):
            return grad_outputs

    class _Fast(_Base):
        def backward(self, indexes, grad_outputs):
            return grad_outputs

        def _backward_arrays(self, indexes, grad_outputs):
            return grad_outputs

    class _Inherits(_Fast):  # a new forward on an inherited fast path is checked too
        def forward(self, inputs):
            return inputs

    found = fast_path_classes(_Base, prefix=__name__)
    assert found == [_Fast, _Inherits]
    (message, _) = unchecked(found, GENERATORS)
    assert '_Fast' in message and 'add' in message and 'GENERATORS' in message
    assert unchecked(found, {'_Fast': [], '_Inherits': []}) == []
