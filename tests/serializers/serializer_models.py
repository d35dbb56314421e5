"""Models and stand-ins shared by the serializer tests."""
import numpy as np

import chainlet.functions as F
from chainlet import Chain, Link, Parameter, initializers


class Affine(Link):
    def __init__(self, n_in, n_out, lazy=False):
        super().__init__()
        with self.init_scope():
            self.W = Parameter(initializers.Normal(1.0), None if lazy else (n_in, n_out))
            self.b = Parameter(initializers.Normal(1.0), (n_out,))
        self.add_persistent('count', 0)
        self.add_persistent('avg', np.zeros(n_out, np.float32))

    def forward(self, x):
        if not self.W.is_initialized:
            self.W.initialize((x.shape[1], self.b.shape[0]))
        return x @ self.W + self.b


class Net(Chain):
    def __init__(self, lazy=False):
        super().__init__()
        with self.init_scope():
            self.l1 = Affine(3, 4, lazy)
            self.l2 = Affine(4, 2, lazy)
        self.add_persistent('tag', 'v1')
        self.add_persistent('nothing', None)
        self.add_persistent('rate', 0.5)

    def forward(self, x):
        return self.l2(F.tanh(self.l1(x)))


def make_net(seed, lazy=False):
    np.random.seed(seed)
    net = Net(lazy)
    net.l1.count = seed
    net.l1.avg[...] = seed
    return net


X = np.random.RandomState(0).randn(5, 3).astype(np.float32)


class Snapshot:
    """What a trainer snapshot looks like: an updater holding the model and its optimizer."""

    def __init__(self, model, optimizer):
        self.model, self.optimizer, self.iteration = model, optimizer, 0

    def serialize(self, serializer):
        updater = serializer['updater']
        self.iteration = updater('iteration', self.iteration)
        self.model.serialize(updater['model:main'])
        self.optimizer.serialize(updater['optimizer:main'])


class FakeOptimizer:
    """A stand-in optimizer following the same protocol as chainlet.optimizers."""

    def __init__(self, link):
        self.target, self.t, self.lr = link, 0, 0.01
        self.state = {name: {'m': np.zeros_like(p.array), 'v': np.zeros_like(p.array)}
                      for name, p in link.namedparams()}

    def step(self):
        self.t += 1
        for name, p in self.target.namedparams():
            self.state[name]['m'] += p.array * self.t
            self.state[name]['v'] += 2.0

    def serialize(self, serializer):
        self.t = serializer('t', self.t)
        self.lr = serializer('lr', self.lr)
        for name, st in self.state.items():
            child = serializer[name.lstrip('/')]
            for key in st:
                st[key] = child(key, st[key])


class Exploding(Link):
    def serialize(self, serializer):
        serializer('a', np.ones(3))
        raise RuntimeError('serialization failed midway')
