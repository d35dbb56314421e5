"""With ``numpy.random.seed``, links start from the very weights Chainer 7.8.1 gives them (the
values below were printed by Chainer 7.8.1 itself), so seeded experiments carry over."""
import numpy as np

import chainlet.links as L


def test_lstm_draws_gate_blocks_in_chainers_order():
    np.random.seed(0)
    lstm = L.LSTM(3, 4)
    np.testing.assert_allclose(lstm.upward.W.array[0, :3], [0.8626, -0.1184, 0.1807], atol=1e-4)
    np.testing.assert_allclose(lstm.upward.W.array[1, :3], [-0.4931, -1.474, 0.3774], atol=1e-4)
    np.testing.assert_allclose(lstm.lateral.W.array[0, :3], [0.882, 0.2001, 0.4894], atol=1e-4)
    np.testing.assert_array_equal(lstm.upward.b.array.reshape(-1, 4)[:, 2], 1)  # forget gates
    np.random.seed(0)
    stateless = L.StatelessLSTM(3, 4)
    np.testing.assert_array_equal(stateless.upward.W.array, lstm.upward.W.array)


def test_lstm_with_inferred_input_size_draws_everything_at_the_first_call():
    x = np.random.RandomState(1).rand(2, 3).astype(np.float32)
    np.random.seed(0)
    lazy = L.LSTM(None, 4)
    assert not lazy.lateral.W.array.any()
    np.random.seed(0)
    lazy(x)
    np.random.seed(0)
    eager = L.LSTM(3, 4)
    np.testing.assert_array_equal(lazy.upward.W.array, eager.upward.W.array)
    np.testing.assert_array_equal(lazy.lateral.W.array, eager.lateral.W.array)
