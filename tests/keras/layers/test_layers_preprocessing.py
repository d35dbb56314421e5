"""Preprocessing layers (Normalization, CategoryEncoding, IntegerLookup, StringLookup), checked
against NumPy references and Keras 3's documented index layout."""
from __future__ import annotations

import numpy as np
import pytest

import chainlet
from chainlet import keras
from chainlet.keras import layers


def _np(x):
    return x.array if isinstance(x, chainlet.Variable) else np.asarray(x)


# -- Normalization --

def test_normalization_adapt_matches_numpy_per_feature():
    data = np.random.RandomState(0).randn(50, 3) * [1.0, 5.0, 0.1] + [2.0, -1.0, 7.0]
    layer = layers.Normalization()
    layer.adapt(data)
    np.testing.assert_allclose(layer.mean.array, data.mean(axis=0), rtol=1e-5)
    np.testing.assert_allclose(layer.variance.array, data.var(axis=0), rtol=1e-4)
    out = _np(layer(data))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, (data - data.mean(0)) / data.std(0), rtol=1e-4, atol=1e-5)


def test_normalization_adapt_from_batches_equals_adapt_from_array():
    data = np.random.RandomState(1).rand(40, 4)

    class Batches(keras.utils.PyDataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return data[10 * i:10 * (i + 1)], np.zeros(10)

    a, b = layers.Normalization(), layers.Normalization()
    a.adapt(data)
    b.adapt(Batches())
    np.testing.assert_allclose(a.mean.array, b.mean.array, rtol=1e-6)
    np.testing.assert_allclose(a.variance.array, b.variance.array, rtol=1e-5)


def test_normalization_axis_none_invert_and_fixed_statistics():
    data = np.arange(12.0).reshape(3, 4)
    layer = layers.Normalization(axis=None)
    layer.adapt(data)
    np.testing.assert_allclose(_np(layer(data)), (data - data.mean()) / data.std(), rtol=1e-5)
    inv = layers.Normalization(mean=3.0, variance=4.0, invert=True)
    np.testing.assert_allclose(_np(inv(np.array([[1.0]]))), [[5.0]])
    with pytest.raises(ValueError, match='both mean and variance'):
        layers.Normalization(mean=1.0)


def test_normalization_gradient_reaches_the_input():
    layer = layers.Normalization(mean=[1.0, 2.0], variance=[4.0, 16.0])
    x = chainlet.Variable(np.array([[3.0, 3.0]], dtype=np.float32))
    y = layer(x)
    y.grad = np.ones_like(y.array)
    y.backward()
    np.testing.assert_allclose(x.grad, [[0.5, 0.25]])


def test_normalization_in_a_model_saves_its_statistics(tmp_path):
    data = np.random.RandomState(2).randn(64, 2) * 3 + 1
    norm = layers.Normalization()
    norm.adapt(data)
    inputs = keras.Input((2,))
    model = keras.Model(inputs, layers.Dense(1)(norm(inputs)))
    model.compile('adam', 'mse')
    model.fit(data, data[:, :1], epochs=1, verbose=0)
    path = str(tmp_path / 'm.keras')
    model.save(path)
    loaded = keras.models.load_model(path)
    np.testing.assert_allclose(loaded.predict(data, verbose=0), model.predict(data, verbose=0),
                               rtol=1e-5)
    assert len(model.trainable_weights) == 2  # the statistics are not trained


# -- CategoryEncoding --

@pytest.mark.parametrize('mode, expected', [
    ('multi_hot', [[1, 0, 1, 0], [0, 1, 0, 1]]),
    ('count', [[1, 0, 2, 0], [0, 2, 0, 1]]),
])
def test_category_encoding_multi_hot_and_count(mode, expected):
    layer = layers.CategoryEncoding(num_tokens=4, output_mode=mode)
    np.testing.assert_array_equal(_np(layer(np.array([[0, 2, 2], [3, 1, 1]]))), expected)


def test_category_encoding_one_hot_shapes_and_errors():
    layer = layers.CategoryEncoding(num_tokens=3, output_mode='one_hot')
    np.testing.assert_array_equal(_np(layer(np.array([2, 0]))), [[0, 0, 1], [1, 0, 0]])
    assert layer(keras.Input((1,), dtype='int32')).shape == (None, 3)
    assert layer(keras.Input((5,), dtype='int32')).shape == (None, 5, 3)
    with pytest.raises(ValueError, match=r'\[0, 3\)'):
        layer(np.array([3]))
    with pytest.raises(ValueError, match='num_tokens'):
        layers.CategoryEncoding(num_tokens=0)
    with pytest.raises(ValueError, match='output_mode'):
        layers.CategoryEncoding(num_tokens=2, output_mode='tf_idf')


# -- lookups --

def test_integer_lookup_index_layout_and_oov():
    layer = layers.IntegerLookup(vocabulary=[12, 36, 1138, 42])
    np.testing.assert_array_equal(_np(layer(np.array([[12, 1138, 42], [42, 1000, 36]]))),
                                  [[1, 3, 4], [4, 0, 2]])
    assert layer.get_vocabulary() == [-1, 12, 36, 1138, 42]
    masked = layers.IntegerLookup(vocabulary=[12, 36], mask_token=0, num_oov_indices=2)
    assert masked.get_vocabulary() == [0, -1, -1, 12, 36]
    np.testing.assert_array_equal(_np(masked(np.array([0, 12, 5, 6]))), [0, 3, 2, 1])
    strict = layers.IntegerLookup(vocabulary=[1], num_oov_indices=0)
    with pytest.raises(ValueError, match='num_oov_indices is 0'):
        strict(np.array([2]))


def test_integer_lookup_adapt_orders_by_frequency_and_caps_max_tokens():
    layer = layers.IntegerLookup(max_tokens=3)
    layer.adapt(np.array([[7, 7, 7, 3, 3, 9]]))
    assert layer.get_vocabulary() == [-1, 7, 3]
    assert layer.vocabulary_size() == 3


def test_integer_lookup_invert_and_multi_hot_in_a_model():
    inverse = layers.IntegerLookup(vocabulary=[12, 36], invert=True)
    np.testing.assert_array_equal(_np(inverse(np.array([1, 2, 0]))), [12, 36, -1])
    layer = layers.IntegerLookup(vocabulary=[5, 6, 7], output_mode='multi_hot')
    inputs = keras.Input((2,), dtype='int64')
    out = layer(inputs)
    assert out.shape == (None, 4)
    model = keras.Model(inputs, out)
    np.testing.assert_array_equal(model.predict(np.array([[5, 7], [9, 9]]), verbose=0),
                                  [[0, 1, 0, 1], [1, 0, 0, 0]])
    with pytest.raises(ValueError, match='invert=True needs output_mode="int"'):
        layers.IntegerLookup(invert=True, output_mode='count')


def test_string_lookup_vocabulary_adapt_and_modes(tmp_path):
    data = np.array([['a', 'c', 'd'], ['d', 'z', 'b']])
    layer = layers.StringLookup(vocabulary=['a', 'b', 'c', 'd'])
    np.testing.assert_array_equal(_np(layer(data)), [[1, 3, 4], [4, 0, 2]])
    np.testing.assert_array_equal(_np(layer([[b'a']])), [[1]])
    adapted = layers.StringLookup()
    adapted.adapt(np.array(['x', 'y', 'y', 'b', 'b', 'b']))
    assert adapted.get_vocabulary() == ['[UNK]', 'b', 'y', 'x']
    vocab_file = tmp_path / 'vocab.txt'
    vocab_file.write_text('a\nb\n')
    counts = layers.StringLookup(vocabulary=str(vocab_file), output_mode='count')
    np.testing.assert_array_equal(_np(counts(np.array([['a', 'a', 'q']]))), [[1, 2, 0]])
    inverse = layers.StringLookup(vocabulary=['a', 'b'], invert=True)
    np.testing.assert_array_equal(inverse(np.array([2, 0])), ['b', '[UNK]'])
    with pytest.raises(ValueError, match='repeated'):
        layers.StringLookup(vocabulary=['a', 'a'])
    with pytest.raises(ValueError, match='mask or OOV token'):
        layers.StringLookup(vocabulary=['[UNK]'])


def test_string_lookup_several_oov_buckets_are_stable():
    layer = layers.StringLookup(vocabulary=['a'], num_oov_indices=3)
    first = _np(layer(np.array(['q', 'r', 's', 'q'])))
    assert first[0] == first[3] and set(first.tolist()) <= {0, 1, 2}
    np.testing.assert_array_equal(_np(layer(np.array(['q', 'r', 's', 'q']))), first)


def test_lookup_config_round_trip():
    layer = layers.StringLookup(vocabulary=['a', 'b'], mask_token='', output_mode='one_hot')
    clone = layers.StringLookup.from_config(layer.get_config())
    assert clone.get_vocabulary() == ['', '[UNK]', 'a', 'b']
    assert clone.output_mode == 'one_hot'


# -- TextVectorization --

def test_text_vectorization_adapt_int_mode_and_padding():
    layer = layers.TextVectorization(max_tokens=6)
    layer.adapt(np.array(["The cat sat on the mat.", "The dog!", "a cat"]))
    assert layer.get_vocabulary() == ['', '[UNK]', 'the', 'cat', 'a', 'dog']  # ties by value
    out = _np(layer(["the cat ate", "mat"]))
    np.testing.assert_array_equal(out, [[2, 3, 1], [1, 0, 0]])
    fixed = layers.TextVectorization(output_sequence_length=2, vocabulary=['x', 'y'])
    np.testing.assert_array_equal(_np(fixed(["y x y", "x"])), [[3, 2], [2, 0]])


def test_text_vectorization_standardize_split_and_ngrams():
    layer = layers.TextVectorization(standardize=None, split='character',
                                     vocabulary=['a', 'B'])
    np.testing.assert_array_equal(_np(layer(["aBb"])), [[2, 3, 1]])
    bigrams = layers.TextVectorization(ngrams=2, output_mode='count',
                                       vocabulary=['a', 'b', 'a b'])
    np.testing.assert_array_equal(_np(bigrams(["a b a"])), [[1, 2, 1, 1]])  # [UNK] = 'b a'
    custom = layers.TextVectorization(standardize=lambda s: s.replace('-', ' '),
                                      split=lambda s: s.split(' '), vocabulary=['x'])
    np.testing.assert_array_equal(_np(custom(["x-x"])), [[2, 2]])


def test_text_vectorization_multi_hot_tf_idf_and_errors():
    docs = ["red red blue", "blue green", "red"]
    hot = layers.TextVectorization(output_mode='multi_hot')
    hot.adapt(docs)
    assert hot.get_vocabulary() == ['[UNK]', 'red', 'blue', 'green']
    np.testing.assert_array_equal(_np(hot(["red red pink"])), [[1, 1, 0, 0]])
    tfidf = layers.TextVectorization(output_mode='tf_idf')
    tfidf.adapt(docs)
    idf_red = np.log(1 + 3 / (1 + 2))
    np.testing.assert_allclose(_np(tfidf(["red red"]))[0, 1], 2 * idf_red, rtol=1e-6)
    with pytest.raises(ValueError, match='idf_weights'):
        layers.TextVectorization(output_mode='tf_idf', vocabulary=['a'])
    with pytest.raises(ValueError, match='standardize'):
        layers.TextVectorization(standardize='upper')
    clone = layers.TextVectorization.from_config(hot.get_config())
    assert clone.get_vocabulary() == hot.get_vocabulary()


def test_text_vectorization_feeds_a_model():
    vectorize = layers.TextVectorization(output_sequence_length=5)
    texts = np.array(["good movie", "bad movie", "good good fun", "bad plot"])
    vectorize.adapt(texts)
    x = _np(vectorize(texts))
    inputs = keras.Input((5,), dtype='int64')
    h = layers.GlobalAveragePooling1D()(layers.Embedding(vectorize.vocabulary_size(), 4)(inputs))
    model = keras.Model(inputs, layers.Dense(1, activation='sigmoid')(h))
    model.compile('adam', 'binary_crossentropy')
    model.fit(x, np.array([1, 0, 1, 0]), epochs=2, verbose=0)
    assert model.predict(x, verbose=0).shape == (4, 1)
