"""Chainer's ``chainer.cuda`` module (``from chainer.cuda import to_cpu``): the same names as
:mod:`chainlet.backends.cuda`."""
from chainlet.backends.cuda import (  # noqa: F401
    GpuDevice, __getattr__, check_cuda_available, get_array_module, get_device,
    get_device_from_array, get_device_from_id, gpu_available, import_cupy, to_cpu, to_gpu)
