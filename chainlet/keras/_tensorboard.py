"""``keras.callbacks.TensorBoard``: scalars, weight histograms and the model graph as
TensorBoard event files, written through ``tensorboardX`` (the ``tensorboard`` extra).

Design: the callback follows Keras 3's layout and tag names so that dashboards and scripts
made for Keras read our logs unchanged. Training values go to ``<log_dir>/train`` and
validation values to ``<log_dir>/validation``; per-epoch scalars are tagged ``epoch_<name>``
(the ``val_`` prefix dropped in the validation run), per-batch ones ``batch_<name>``.
``tensorboardX`` writes the event files without TensorFlow or PyTorch; it is imported when a
callback is constructed, never by ``import chainlet`` or ``from chainlet import keras``.
Writers open lazily, so a callback that never logs creates no files.

The graph is the one Keras 3 writes: the model's JSON configuration as a
``graph_keras_model`` summary (TensorBoard's graph dashboard draws it as a conceptual graph
of layers). It costs one ``to_json`` call; a model that cannot be serialized (a subclassed
model without ``get_config``) is skipped with a warning, as Keras does. An op-level graph
(what ``tf.function`` tracing gives Keras on TensorFlow) is not written: a define-by-run
graph would need a traced forward pass per fit.

Example:
    >>> from chainlet import keras
    >>> tb = keras.callbacks.TensorBoard(log_dir='logs', update_freq='batch')  # doctest: +SKIP
    >>> model.fit(x, y, epochs=2, callbacks=[tb])  # doctest: +SKIP
"""
from __future__ import annotations

import os
import time
import warnings
from typing import Any, Optional

import numpy

from chainlet.keras.callbacks import Callback

_INSTALL_HINT = 'pip install "chainlet-dl[tensorboard]"'


def _summary_writer_class(where: str) -> Any:
    try:
        from tensorboardX import SummaryWriter
    except ImportError as exc:
        raise ImportError(f'{where} writes TensorBoard event files through the tensorboardX '
                          f'package, which is not installed; install it with '
                          f'{_INSTALL_HINT}') from exc
    return SummaryWriter


def _keras_model_summary(json_config: str) -> Any:
    """A ``Summary`` proto holding the model JSON under the ``graph_keras_model`` plugin."""
    from tensorboardX.proto.summary_pb2 import Summary, SummaryMetadata
    from tensorboardX.proto.tensor_pb2 import TensorProto
    from tensorboardX.proto.tensor_shape_pb2 import TensorShapeProto

    metadata = SummaryMetadata(
        plugin_data=SummaryMetadata.PluginData(plugin_name='graph_keras_model', content=b'1'))
    tensor = TensorProto(dtype='DT_STRING', string_val=[json_config.encode('utf-8')],
                         tensor_shape=TensorShapeProto())
    return Summary(value=[Summary.Value(tag='keras', metadata=metadata, tensor=tensor)])


def _weight_image(value: numpy.ndarray) -> Optional[numpy.ndarray]:
    """A weight as a ``(N, H, W, 1)`` image batch scaled to [0, 1], or ``None`` when it has no
    2-d picture (Keras draws biases as a row, dense kernels with the long side across and
    convolution kernels one image per output channel)."""
    w = numpy.squeeze(numpy.asarray(value, dtype=numpy.float64))
    if w.ndim == 1:
        img = w.reshape(1, 1, w.shape[0], 1)
    elif w.ndim == 2:
        if w.shape[0] > w.shape[1]:
            w = w.T
        img = w.reshape(1, w.shape[0], w.shape[1], 1)
    elif w.ndim == 3:
        # channels-last (kh, kw, c): one picture per trailing channel
        w = numpy.transpose(w, (2, 0, 1))
        img = w.reshape(w.shape[0], w.shape[1], w.shape[2], 1)
    else:
        return None
    if img.size == 0:
        return None
    low, high = img.min(), img.max()
    return (img - low) / (high - low) if high > low else numpy.zeros_like(img)


class TensorBoard(Callback):
    """Write losses, metrics, the learning rate and weight histograms for TensorBoard.

    View the logs with ``tensorboard --logdir <log_dir>``. Keras 3's behaviour:

    * at every epoch end: ``epoch_<name>`` for each training log value (and
      ``epoch_learning_rate``, ``epoch_steps_per_second``) under ``<log_dir>/train``, and
      for each ``val_<name>`` value an ``epoch_<name>`` under ``<log_dir>/validation``,
      with the epoch (0-based) as the step;
    * after each validation (and each ``evaluate`` with this callback):
      ``evaluation_<name>_vs_iterations`` under ``validation`` at the optimizer's
      iteration count;
    * with ``update_freq='batch'`` or an integer ``n``: ``batch_<name>`` (the running epoch
      averages ``fit`` reports per batch) every ``n`` training batches, with the global
      batch count (1-based, across epochs) as the step;
    * every ``histogram_freq`` epochs: a histogram ``<layer>/<weight>/histogram`` of every
      weight (and an image ``<layer>/<weight>/image`` with ``write_images``).

    Args:
        log_dir: Folder of the logs (``train`` and ``validation`` runs are made in it).
        histogram_freq: Epochs between weight histograms (0: none).
        write_graph: Write the model's layer graph (its JSON config) when training starts.
        write_images: Also write the weights as images when histograms are written.
        write_steps_per_second: Log ``steps_per_second`` per epoch (and
            ``batch_steps_per_second`` per logged batch).
        update_freq: ``'epoch'``, ``'batch'`` (= 1) or a number of batches between
            batch-level scalars.
        profile_batch: Must be 0: profiling is not available (Keras 3 refuses it too on
            backends other than TensorFlow and JAX).
        embeddings_freq: Must be 0: the embedding projector is not supported.
        embeddings_metadata: Must be ``None`` (see ``embeddings_freq``).

    Raises:
        ImportError: ``tensorboardX`` is not installed (or, with ``write_images``, Pillow).
        ValueError: An argument is out of range.
    """

    def __init__(self, log_dir: Any = 'logs', histogram_freq: int = 0, write_graph: bool = True,
                 write_images: bool = False, write_steps_per_second: bool = False,
                 update_freq: Any = 'epoch', profile_batch: Any = 0, embeddings_freq: int = 0,
                 embeddings_metadata: Any = None) -> None:
        super().__init__()
        self._writer_class = _summary_writer_class('TensorBoard')
        if update_freq == 'batch':
            update_freq = 1
        if update_freq != 'epoch' and (isinstance(update_freq, bool)
                                       or not isinstance(update_freq, int) or update_freq < 1):
            raise ValueError(f"TensorBoard: update_freq must be 'epoch', 'batch' or a positive "
                             f"integer, got {update_freq!r}")
        if isinstance(histogram_freq, bool) or not isinstance(histogram_freq, int) \
                or histogram_freq < 0:
            raise ValueError(f'TensorBoard: histogram_freq must be a non-negative integer, got '
                             f'{histogram_freq!r}')
        if profile_batch not in (0, None, '0'):
            raise ValueError(f'TensorBoard: profiling is not available in chainlet; got '
                             f'profile_batch={profile_batch!r} (must be 0)')
        if embeddings_freq or embeddings_metadata is not None:
            raise ValueError('TensorBoard: the embedding projector is not supported; '
                             'embeddings_freq must be 0 and embeddings_metadata None')
        if write_images:
            try:  # tensorboardX encodes images as PNG through Pillow
                import PIL  # noqa: F401
            except ImportError as exc:
                raise ImportError('TensorBoard(write_images=True) needs Pillow to encode the '
                                  'images; install it with pip install "chainlet-dl[image]"') \
                    from exc
        self.log_dir = os.fspath(log_dir)
        self.histogram_freq = histogram_freq
        self.write_graph = bool(write_graph)
        self.write_images = bool(write_images)
        self.write_steps_per_second = bool(write_steps_per_second)
        self.update_freq = update_freq
        self.embeddings_freq = 0
        self.embeddings_metadata = None
        self._writers: dict = {}
        self._training = False
        self._global_train_batch = 0
        self._batch_start_time = 0.0
        self._epoch_start_time = 0.0
        self._epoch_start_iterations = 0

    # ------------------------------------------------------------------ writers

    def _writer(self, run: str) -> Any:
        writer = self._writers.get(run)
        if writer is None:
            # tensorboardX names a file by the second it was opened and truncates a file of
            # the same name: two fits within a second would overwrite each other's events.
            # The nanoseconds keep names unique and in the order TensorBoard reads them.
            writer = self._writer_class(logdir=os.path.join(self.log_dir, run),
                                        filename_suffix=f'.{time.time_ns() % 10 ** 9:09d}')
            self._writers[run] = writer
        return writer

    def _close_writers(self) -> None:
        for writer in self._writers.values():
            writer.close()
        self._writers = {}

    # ------------------------------------------------------------------ hooks

    def set_model(self, model: Any) -> None:
        super().set_model(model)
        self._close_writers()

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        self._training = True
        self._global_train_batch = 0
        if self.write_graph:
            self._write_model_graph()

    def on_train_end(self, logs: Optional[dict] = None) -> None:
        self._training = False
        self._close_writers()

    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None:
        if self.write_steps_per_second:
            self._epoch_start_time = time.time()
            self._epoch_start_iterations = self._iterations()

    def on_train_batch_begin(self, batch: int, logs: Optional[dict] = None) -> None:
        self._global_train_batch += 1
        if self.write_steps_per_second:
            self._batch_start_time = time.time()

    def on_train_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        if self.update_freq == 'epoch' or self._global_train_batch % self.update_freq:
            return
        writer = self._writer('train')
        step = self._global_train_batch
        if self.write_steps_per_second:
            elapsed = time.time() - self._batch_start_time
            if elapsed > 0:
                writer.add_scalar('batch_steps_per_second', 1.0 / elapsed, step)
        for name, value in _scalars(logs):
            writer.add_scalar(f'batch_{name}', value, step)

    def on_test_end(self, logs: Optional[dict] = None) -> None:
        optimizer = getattr(self.model, 'optimizer', None)
        if optimizer is None or not hasattr(optimizer, 'iterations'):
            return
        writer = self._writer('validation')
        step = int(optimizer.iterations)
        for name, value in _scalars(logs):
            writer.add_scalar(f'evaluation_{name}_vs_iterations', value, step)
        if self._training:
            writer.flush()
        else:
            # a bare evaluate() has no on_train_end; tensorboardX's flush() may leave queued
            # events unwritten, only close() is sure to write them
            self._close_writers()

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        self._log_epoch_metrics(epoch, logs or {})
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self._log_weights(epoch)

    # ------------------------------------------------------------------ writing

    def _iterations(self) -> int:
        optimizer = getattr(self.model, 'optimizer', None)
        return int(getattr(optimizer, 'iterations', 0) or 0)

    def _log_epoch_metrics(self, epoch: int, logs: dict) -> None:
        if not logs:
            return
        train = {k: v for k, v in logs.items() if not k.startswith('val_')}
        val = {k[4:]: v for k, v in logs.items() if k.startswith('val_')}
        # Any: None or a non-number is possible and handled by the except below.
        lr: Any = getattr(getattr(self.model, 'optimizer', None), 'learning_rate', None)
        try:
            train['learning_rate'] = float(lr)
        except (TypeError, ValueError):
            pass  # no optimizer, or a rate that is not a number
        if self.write_steps_per_second:
            elapsed = time.time() - self._epoch_start_time
            if elapsed > 0:
                train['steps_per_second'] = \
                    (self._iterations() - self._epoch_start_iterations) / elapsed
        for run, values in (('train', train), ('validation', val)):
            pairs = list(_scalars(values))
            if not pairs:
                continue
            writer = self._writer(run)
            for name, value in pairs:
                writer.add_scalar(f'epoch_{name}', value, epoch)
            writer.flush()

    def _log_weights(self, epoch: int) -> None:
        writer = self._writer('train')
        for layer in getattr(self.model, 'layers', []):
            for weight in layer.weights:
                name = str(getattr(weight, 'path', None) or weight.name).replace(':', '_')
                value = numpy.asarray(_to_numpy(weight))
                if value.size == 0:
                    continue
                writer.add_histogram(f'{name}/histogram', value, epoch)
                if self.write_images:
                    image = _weight_image(value)
                    if image is not None:
                        writer.add_images(f'{name}/image', image, epoch, dataformats='NHWC')
        writer.flush()

    def _write_model_graph(self) -> None:
        to_json = getattr(self.model, 'to_json', None)
        if to_json is None:
            return
        try:
            config = to_json()
        except Exception as exc:  # a model that cannot be serialized must not stop training
            warnings.warn(f'TensorBoard: the model could not be serialized to JSON, so no '
                          f'graph is written ({exc})', stacklevel=2)
            return
        writer = self._writer('train')
        # tensorboardX has no call for a raw Summary, so the proto goes to its file writer.
        writer._get_file_writer().add_summary(_keras_model_summary(config), 0)
        writer.flush()


def _to_numpy(weight: Any) -> Any:
    if hasattr(weight, 'numpy'):  # a KerasVariable copies its (possibly CuPy) array to host
        return weight.numpy()
    return numpy.asarray(weight)


def _scalars(logs: Optional[dict]) -> Any:
    """``(name, float)`` for the log values that are numbers (Keras logs may carry others)."""
    if not isinstance(logs, dict):
        return
    for name, value in logs.items():
        try:
            number = float(value)
        except (TypeError, ValueError):
            continue
        yield name, number
