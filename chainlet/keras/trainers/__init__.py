"""The training half of ``keras.Model``, one module per job (as Keras 3's ``trainers``).

* :mod:`.data_adapters`: arrays, datasets, generators, ``PyDataset`` and loaders turned into
  batches; validation split; batch-size checks.
* :mod:`.compile_utils`: ``compile``'s arguments resolved against the outputs; the loss sum
  and the ``compile_metrics`` container.
* :mod:`.trainer`: :class:`Trainer`, the mixin with ``compile``, ``fit``/``evaluate``/
  ``predict``, ``train_step``/``test_step``/``predict_step`` and the batch methods.
* :mod:`.saving`: weights as named arrays, ``save``/``load_weights``, compile configs.
"""
from __future__ import annotations

from chainlet.keras.trainers.trainer import Trainer

__all__ = ['Trainer']
