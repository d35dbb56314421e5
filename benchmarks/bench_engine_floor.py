"""A lower bound for a define-by-run op in pure Python (a script that prints figures; not a test).

The tiny workload of ``bench_core.py`` (999 ops of ``tanh``, ``* 1.5`` and ``+ 0.1`` on shape
(1,)) run through the least Python an op can do while keeping chainlet's graph layout: a
FunctionNode with an ``inputs`` tuple of VariableNodes and a weak reference to its output node,
and a Variable holding its node. No checks, no configuration, no hooks, no retention
bookkeeping, no operator dispatch. chainlet's own ``apply`` keeps all of those; the difference
between the two is what they cost per op.

Both are timed with Python's cyclic garbage collector on, as a training script runs (``timeit``
turns it off unless told otherwise), and off: every object a live graph holds is scanned by each
collection, so the layout's object count is part of the per-op cost.

Run: python benchmarks/bench_engine_floor.py
"""
from __future__ import annotations

import gc
import timeit
import weakref

import numpy as np

import chainlet
import chainlet.functions as F

_ref = weakref.ref
_new = object.__new__


class Node:
    __slots__ = ('_variable', 'creator_node', 'rank', 'shape', 'dtype', 'data',
                 'requires_grad', 'name', '_grad_var', '__weakref__')


class Var:
    __slots__ = ('_data', '_node', '__weakref__')


def _var(data, creator, rank):
    v = _new(Var)
    v._data = data
    n = _new(Node)
    n._variable = None
    n.creator_node, n.rank = creator, rank
    n.shape, n.dtype, n.data, n.name, n.requires_grad, n._grad_var = \
        data.shape, data.dtype, None, None, True, None
    v._node = n
    return v


class Func:
    def apply(self, inputs):
        x = inputs[0]
        y = self.forward(x._data)
        node = x._node
        self.inputs = (node,)
        self.rank = r = node.rank
        v = _var(y, self, r + 1)
        self._outputs = _ref(v._node)
        return v,


class Tanh(Func):
    def forward(self, x):
        return np.tanh(x)


class MulConstant(Func):
    def __init__(self, c):
        self.c = c

    def forward(self, x):
        return x * self.c


class AddConstant(Func):
    def __init__(self, c):
        self.c = c

    def forward(self, x):
        return x + self.c


def main():
    x = _var(np.full((1,), 0.3, np.float32), None, 0)
    xv = chainlet.Variable(np.full((1,), 0.3, np.float32))
    mul, add = np.float32(1.5), np.float32(0.1)

    def floor():
        y = x
        for _ in range(333):
            y = Tanh().apply((y,))[0]
            y = MulConstant(mul).apply((y,))[0]
            y = AddConstant(add).apply((y,))[0]
        return y

    def engine():
        y = xv
        for _ in range(333):
            y = F.tanh(y)
            y = y * 1.5
            y = y + 0.1
        return y

    def us_per_op(fn, setup):
        return min(timeit.repeat(fn, setup, number=30, repeat=15)) / 30 / 999 * 1e6
    for label, setup in (('GC on', 'gc.enable()'), ('GC off', 'pass')):
        print(f'{label}: minimal engine {us_per_op(floor, setup):.2f} us/op, '
              f'chainlet {us_per_op(engine, setup):.2f} us/op')
        with chainlet.using_config('type_check', False):
            print(f'{label}: chainlet with type_check off {us_per_op(engine, setup):.2f} us/op')
    assert gc.isenabled()


if __name__ == '__main__':
    main()
