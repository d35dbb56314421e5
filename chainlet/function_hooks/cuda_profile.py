"""``CUDAProfileHook``: mark each function's forward and backward as an NVTX range.

Under NVIDIA's profilers (Nsight Systems, ``nvprof``) the ranges appear on the timeline named
``<label>.forward`` and ``<label>.backward``, so GPU kernels can be attributed to the chainlet
functions that launched them. It needs CuPy built with NVTX; constructing it elsewhere raises
``RuntimeError``, as in Chainer.

Example (on a GPU, under a profiler)::

    from chainlet.function_hooks import CUDAProfileHook
    with CUDAProfileHook():
        loss = model(x, t)
        loss.backward()
"""
from __future__ import annotations

from typing import Any

from chainlet.backends import cuda
from chainlet.function_hooks.function_hook import FunctionHook


class CUDAProfileHook(FunctionHook):
    """Function hook that pushes an NVTX range around every forward and backward.

    Raises:
        RuntimeError: CuPy, a GPU or CuPy's NVTX support is not available.
    """

    name = 'CUDAProfileHook'

    def __init__(self) -> None:
        cuda.check_cuda_available()
        cupy = cuda.cupy
        if not getattr(cupy.cuda, 'nvtx_enabled', False):
            raise RuntimeError('CUDAProfileHook needs CuPy built with NVTX '
                               '(cupy.cuda.nvtx_enabled is False)')
        self._nvtx = cupy.cuda.nvtx

    def forward_preprocess(self, function: Any, in_data: tuple) -> None:
        self._nvtx.RangePush(function.label + '.forward')

    def forward_postprocess(self, function: Any, in_data: tuple) -> None:
        self._nvtx.RangePop()

    def backward_preprocess(self, function: Any, in_data: tuple, out_grad: tuple) -> None:
        self._nvtx.RangePush(function.label + '.backward')

    def backward_postprocess(self, function: Any, in_data: tuple, out_grad: tuple) -> None:
        self._nvtx.RangePop()
