"""Run a Python script or module, on the CuPy emulator when ``CHAINLET_EMULATE_CUPY`` is set.

``python tools/emulated_run.py examples/train_digits.py --device @cupy:0`` runs the script as
``python examples/train_digits.py ...`` would, and ``python tools/emulated_run.py -m pytest ...``
runs a module the same way; with ``CHAINLET_EMULATE_CUPY=1`` the CPU stand-in of
``tools/cupy_emulator`` is installed first, so that ``import cupy`` finds it. Without the
variable nothing is installed: on a GPU machine the same command line uses the real CuPy.
``tools/gpu_first_run.sh`` starts the examples and Chainer's tests through it.
"""
from __future__ import annotations

import os
import runpy
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main(argv: list[str]) -> None:
    if not argv or argv == ['-m']:
        sys.exit('usage: emulated_run.py SCRIPT [ARGS...] | -m MODULE [ARGS...]')
    if os.environ.get('CHAINLET_EMULATE_CUPY'):
        sys.path.insert(0, ROOT)
        import tools.cupy_emulator
        tools.cupy_emulator.install()
        sys.path.remove(ROOT)  # the emulator is imported; leave the search path as it was
    # sys.path[0] is this file's folder; make it what `python -m` or `python SCRIPT` puts there
    if argv[0] == '-m':
        sys.path[0] = os.getcwd()
        sys.argv = [argv[1]] + argv[2:]
        runpy.run_module(argv[1], run_name='__main__', alter_sys=True)
    else:
        sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))
        sys.argv = list(argv)
        runpy.run_path(argv[0], run_name='__main__')


if __name__ == '__main__':
    main(sys.argv[1:])
