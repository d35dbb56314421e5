"""Shared builders for the training tests: a tiny classifier on a seeded random dataset."""
from __future__ import annotations

import numpy as np
import pytest

import chainlet.links as L
from chainlet import iterators, optimizers, training


def make_data(n=40, seed=0):
    rng = np.random.RandomState(seed)
    x = rng.rand(n, 4).astype(np.float32)
    t = (x[:, 0] + x[:, 1] > x[:, 2] + x[:, 3]).astype(np.int32)
    return list(zip(x, t))


def make_model(seed=0):
    rng = np.random.RandomState(seed)
    w = rng.normal(0, 0.5, (3, 4)).astype(np.float32)
    return L.Classifier(L.Linear(4, 3, initialW=w))


class Setup:
    """model, optimizer, iterator, updater and trainer built deterministically."""

    def __init__(self, out, stop=(3, 'epoch'), n=40, batch_size=8, shuffle=True, seed=0,
                 optimizer='adam', accumulate=1):
        self.model = make_model(seed)
        self.optimizer = (optimizers.Adam(alpha=0.01) if optimizer == 'adam'
                          else optimizers.SGD(lr=0.1)).setup(self.model)
        sampler = iterators.ShuffleOrderSampler(np.random.RandomState(seed)) if shuffle \
            else None
        self.iterator = iterators.SerialIterator(make_data(n, seed), batch_size,
                                                 shuffle=None if shuffle else False,
                                                 order_sampler=sampler)
        self.updater = training.updaters.StandardUpdater(self.iterator, self.optimizer,
                                                         accumulate=accumulate)
        self.trainer = training.Trainer(self.updater, stop, out=str(out))


@pytest.fixture
def setup_factory(tmp_path):
    def make(**kwargs):
        kwargs.setdefault('out', tmp_path / 'result')
        return Setup(**kwargs)
    return make


@pytest.fixture
def data_factory():
    return make_data


@pytest.fixture
def model_factory():
    return make_model


class FakeUpdater:
    """Progress attributes only: what triggers read."""

    def __init__(self, iters_per_epoch):
        self.iters_per_epoch = iters_per_epoch
        self.iteration = 0
        self.previous_epoch_detail = None

    @property
    def epoch_detail(self):
        return self.iteration / self.iters_per_epoch

    @property
    def epoch(self):
        return self.iteration // self.iters_per_epoch

    def step(self):
        self.previous_epoch_detail = self.epoch_detail
        self.iteration += 1


class FakeTrainer:
    def __init__(self, iters_per_epoch=4):
        self.updater = FakeUpdater(iters_per_epoch)
        self.observation = {}


@pytest.fixture
def fake_trainer():
    return FakeTrainer
