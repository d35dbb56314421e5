"""A lower bound for a define-by-run op in pure Python (a script that prints figures; not a test).

The tiny workload of ``bench_core.py`` (999 ops of ``tanh``, ``* c`` and ``+ c`` on shape (1,))
run through the least Python an op can do while keeping Chainer's graph layout: a FunctionNode
with an ``inputs`` tuple of VariableNodes (a constant array gets a node of its own, as in
chainlet) and a weak reference to its output node, and a Variable whose node reaches it by a weak
reference. No checks, no configuration, no hooks, no retention bookkeeping. chainlet's own
``apply`` keeps all of those; the difference between the two is what they cost per op.

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
                 'requires_grad', 'name', '__weakref__')


class Var:
    __slots__ = ('_data', '_node', '_grad_var', '__weakref__')


def _node(v, data, creator, rank):
    n = _new(Node)
    n._variable = None if v is None else _ref(v)
    n.creator_node, n.rank = creator, rank
    n.shape, n.dtype, n.data, n.name, n.requires_grad = data.shape, data.dtype, None, None, True
    return n


def leaf(a):
    v = _new(Var)
    v._data, v._grad_var = a, None
    v._node = _node(v, a, None, 0)
    return v


class Func:
    def apply(self, inputs):
        nodes = tuple([x._node if type(x) is Var else _node(None, x, None, 0) for x in inputs])
        arrays = [x._data if type(x) is Var else x for x in inputs]
        y = self.forward(arrays)
        self.inputs = nodes
        self.rank = r = max(n.rank for n in nodes)
        v = _new(Var)
        v._data, v._grad_var = y, None
        v._node = _node(v, y, self, r + 1)
        self._outputs = _ref(v._node)
        return v,


class Tanh(Func):
    def forward(self, xs):
        return np.tanh(xs[0])


class Mul(Func):
    def forward(self, xs):
        return xs[0] * xs[1]


class Add(Func):
    def forward(self, xs):
        return xs[0] + xs[1]


def main():
    c = np.full((1,), 0.5, np.float32)
    x = leaf(np.full((1,), 0.3, np.float32))
    xv = chainlet.Variable(np.full((1,), 0.3, np.float32))

    def floor():
        y = x
        for _ in range(333):
            y = Tanh().apply((y,))[0]
            y = Mul().apply((y, c))[0]
            y = Add().apply((y, c))[0]
        return y

    def engine():
        y = xv
        for _ in range(333):
            y = F.tanh(y)
            y = y * c
            y = y + c
        return y

    def us_per_op(fn):
        return min(timeit.repeat(fn, number=50, repeat=9)) / 50 / 999 * 1e6
    for label in ('GC on', 'GC off'):
        if label == 'GC off':
            gc.disable()
        print(f'{label}: minimal engine {us_per_op(floor):.2f} us/op, '
              f'chainlet {us_per_op(engine):.2f} us/op')
        with chainlet.using_config('type_check', False):
            print(f'{label}: chainlet with type_check off {us_per_op(engine):.2f} us/op')
    gc.enable()


if __name__ == '__main__':
    main()
