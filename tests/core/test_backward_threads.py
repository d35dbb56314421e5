"""Backward from several threads into shared parameters: every gradient arrives.

Accumulating into a leaf's ``.grad`` reads the old gradient, adds, and stores the sum; two
threads interleaving there lost about 1% of the gradient before the step was made atomic.
"""
from __future__ import annotations

import sys
import threading

import numpy as np

import chainlet
import chainlet.functions as F
import chainlet.links as L


def test_threads_accumulate_the_exact_sum_into_shared_parameters():
    n_threads, n_steps = 8, 200
    link = L.Linear(3, 2, initialW=np.ones((2, 3), np.float64),
                    initial_bias=np.zeros(2, np.float64))
    link.cleargrads()  # a Parameter's grad starts as NaN, as in Chainer
    x = np.ones((1, 3), np.float64)
    barrier = threading.Barrier(n_threads)
    errors = []

    def work():
        try:
            barrier.wait()
            for _ in range(n_steps):
                F.sum(link(x)).backward()
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible, to provoke the race
    try:
        threads = [threading.Thread(target=work) for _ in range(n_threads)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert errors == []
    total = n_threads * n_steps  # each backward adds x (ones) to W.grad and 1 to b.grad
    np.testing.assert_array_equal(link.W.grad, np.full((2, 3), float(total)))
    np.testing.assert_array_equal(link.b.grad, np.full(2, float(total)))


def test_threads_accumulate_into_a_shared_variable():
    v = chainlet.Variable(np.zeros(4))
    barrier = threading.Barrier(4)

    def work():
        barrier.wait()
        for _ in range(300):
            F.sum(v * 2.0).backward()

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    np.testing.assert_array_equal(v.grad, np.full(4, 2.0 * 4 * 300))
