"""The facade's optimizers reject arguments Keras 3 rejects, with Keras 3's message (issue 32)."""
from __future__ import annotations

import pytest

from chainlet.keras import optimizers


@pytest.mark.parametrize('cls', [optimizers.SGD, optimizers.RMSprop, optimizers.Adam,
                                 optimizers.AdamW, optimizers.Adagrad])
def test_keras2_lr_is_rejected_as_keras3_does(cls):
    # Keras 3: ValueError("Argument(s) not recognized: {'lr': 0.1}"); it used to be accepted
    # here silently as the learning rate.
    with pytest.raises(ValueError, match=r"Argument\(s\) not recognized: \{'lr': 0\.1\}") as e:
        cls(lr=0.1)
    assert 'learning_rate' in str(e.value)


def test_any_unknown_argument_is_rejected():
    with pytest.raises(ValueError, match=r"Argument\(s\) not recognized: \{'betas': \(0\.9, "):
        optimizers.Adam(betas=(0.9, 0.99))


def test_learning_rate_and_the_lr_attribute_still_work():
    opt = optimizers.Adam(learning_rate=0.1)
    assert opt.learning_rate == pytest.approx(0.1)
    assert opt.lr == pytest.approx(0.1)
    restored = optimizers.Adam.from_config(opt.get_config())
    assert restored.learning_rate == pytest.approx(0.1)
