"""``chainermn.nccl``: CuPy's NCCL bindings, when CuPy has them (``_available``)."""
try:
    from cupy.cuda.nccl import get_build_version  # noqa: F401
    from cupy.cuda.nccl import get_unique_id  # noqa: F401
    from cupy.cuda.nccl import get_version  # noqa: F401
    from cupy.cuda.nccl import NCCL_FLOAT  # noqa: F401
    from cupy.cuda.nccl import NCCL_FLOAT16  # noqa: F401
    from cupy.cuda.nccl import NCCL_FLOAT32  # noqa: F401
    from cupy.cuda.nccl import NCCL_FLOAT64  # noqa: F401
    from cupy.cuda.nccl import NCCL_SUM  # noqa: F401
    from cupy.cuda.nccl import NcclCommunicator  # noqa: F401
    from cupy.cuda.nccl import NcclError  # noqa: F401
    _available = True
except Exception:  # CuPy or its NCCL missing: ChainerMN's module is then empty too
    _available = False
