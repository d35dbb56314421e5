"""Optimizers given Keras's or PyTorch's argument names say what Chainer calls them (issue 32)."""
from __future__ import annotations

import copy
import pickle

import pytest

from chainlet import optimizers


@pytest.mark.parametrize('cls, kwargs, expected', [
    (optimizers.Adam, {'lr': 0.1}, "calls it 'alpha': Adam(alpha=...)"),
    (optimizers.Adam, {'learning_rate': 0.1}, "calls it 'alpha'"),
    (optimizers.AdamW, {'lr': 0.1}, "calls it 'alpha'"),
    (optimizers.AMSGrad, {'lr': 0.1}, "calls it 'alpha'"),
    (optimizers.SGD, {'learning_rate': 0.1}, "calls it 'lr': SGD(lr=...)"),
    (optimizers.MomentumSGD, {'learning_rate': 0.1}, "calls it 'lr'"),
    (optimizers.Adam, {'betas': (0.9, 0.99)}, 'beta1=... and beta2=...'),
    (optimizers.Adam, {'beta_1': 0.9}, "calls it 'beta1'"),
    (optimizers.Adam, {'epsilon': 1e-7}, "calls it 'eps'"),
    (optimizers.Adam, {'weight_decay': 0.01}, "calls it 'weight_decay_rate'"),
    (optimizers.SGD, {'weight_decay': 0.01}, 'optimizer_hooks.WeightDecay(rate)'),
    (optimizers.SGD, {'momentum': 0.9}, 'MomentumSGD(lr, momentum)'),
    (optimizers.SGD, {'nesterov': True}, 'NesterovAG'),
    (optimizers.SGD, {'clipnorm': 1.0}, 'GradientClipping(threshold)'),
    (optimizers.RMSprop, {'rho': 0.9}, "calls it 'alpha'"),
    (optimizers.AdaDelta, {'learning_rate': 1.0}, 'has no learning rate'),
    (optimizers.Adam, {'alpah': 0.1}, 'check the spelling'),
])
def test_foreign_name_gets_a_type_error_naming_chainers_argument(cls, kwargs, expected):
    with pytest.raises(TypeError) as info:
        cls(**kwargs)
    message = str(info.value)
    assert message.startswith(f'{cls.__name__}: unexpected keyword argument '
                              f'{next(iter(kwargs))!r}')
    assert expected in message
    assert '(its arguments: ' in message


def test_chainers_names_still_work_positionally_and_by_keyword():
    assert optimizers.Adam(alpha=0.1, beta1=0.8).alpha == 0.1
    assert optimizers.Adam(0.2).alpha == 0.2
    assert optimizers.SGD(lr=0.3).lr == 0.3
    assert optimizers.RMSprop(lr=0.1, alpha=0.9).alpha == 0.9


def test_too_many_positional_arguments_keep_pythons_error():
    with pytest.raises(TypeError, match='positional'):
        optimizers.SGD(0.1, 0.2)


def test_copy_and_pickle_are_unaffected():
    opt = optimizers.Adam(alpha=0.1)
    assert copy.deepcopy(opt).alpha == 0.1
    assert pickle.loads(pickle.dumps(opt)).alpha == 0.1


def test_a_subclass_with_its_own_arguments_is_checked_against_its_own_signature():
    class MyAdam(optimizers.Adam):
        def __init__(self, lr: float = 0.1) -> None:
            super().__init__(alpha=lr)

    assert MyAdam(lr=0.5).alpha == 0.5
    with pytest.raises(TypeError, match="'alpha'"):
        MyAdam(alpha=0.5)  # neither name maps back; the message lists its arguments
