"""``dump_graph``: write the computational graph of an observed Variable as a DOT file.

Example:
    >>> from chainlet.training import extensions
    >>> ext = extensions.dump_graph('main/loss')
    >>> ext.default_name, ext.trigger(None)
    ('dump_graph', True)
"""
from __future__ import annotations

import os
import subprocess
from typing import Any, Optional, Sequence

from chainlet import _config
from chainlet.training import extension
from chainlet.training._files import write_text_atomic
from chainlet.variable import Variable


def is_return_code_zero(args: Sequence[str]) -> bool:
    """Whether the command ``args`` runs and exits with status 0 (its output is discarded).

    A command that is not found counts as failing.

    Example:
        >>> import sys
        >>> is_return_code_zero([sys.executable, '-c', 'pass'])
        True
        >>> is_return_code_zero(['a-command-that-does-not-exist'])
        False
    """
    try:
        subprocess.check_call(list(args), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except (subprocess.CalledProcessError, OSError):
        return False
    return True


def is_graphviz_available() -> bool:
    """Whether Graphviz's ``dot`` command can be run (to render the DOT files written here)."""
    return is_return_code_zero(['dot', '-V'])


class DumpGraph(extension.Extension):
    """Write the graph behind ``trainer.observation[root_name]`` once, at the first iteration.

    Reported Variables normally lose their graph; this extension turns
    ``chainlet.config.keep_graph_on_report`` on in ``initialize`` and restores it after it ran.
    The result is ``<trainer.out>/<filename>`` in Graphviz DOT (``dot -Tpng cg.dot -o
    cg.png``).

    Args:
        root_name: The observation key of the Variable, e.g. ``'main/loss'``.
        filename: The output file name.
        variable_style: Style of variable nodes (see
            :func:`chainlet.computational_graph.build_computational_graph`).
        function_style: Style of function nodes.
    """

    default_name = 'dump_graph'
    priority = extension.PRIORITY_READER

    def __init__(self, root_name: str, filename: str = 'cg.dot', variable_style: Any = None,
                 function_style: Any = None, **kwargs: Any) -> None:
        if 'out_name' in kwargs:  # Chainer's older name of the argument
            filename = kwargs.pop('out_name')
        if kwargs:
            raise TypeError(f'dump_graph: unexpected keyword arguments {sorted(kwargs)}')
        self._root_name = root_name
        self._filename = filename
        self._variable_style = 'default' if variable_style is None else variable_style
        self._function_style = 'default' if function_style is None else function_style
        self._original_flag: Optional[bool] = None
        self._flag_called = False

    def initialize(self, trainer: Any) -> None:
        """Keep graphs of reported Variables until the graph was written."""
        if not self._flag_called:
            self._original_flag = _config.config.keep_graph_on_report
            _config.config.keep_graph_on_report = True

    def trigger(self, trainer: Any) -> bool:  # type: ignore[override]
        """Fire until the graph has been written once."""
        return not self._flag_called

    def __call__(self, trainer: Any) -> None:
        """Write the graph and restore ``keep_graph_on_report``."""
        from chainlet import computational_graph
        try:
            var = trainer.observation[self._root_name]
            if not isinstance(var, Variable):
                raise TypeError(f'dump_graph: observation {self._root_name!r} is a '
                                f'{type(var).__name__}, not a Variable')
            graph = computational_graph.build_computational_graph(
                [var], variable_style=self._variable_style,
                function_style=self._function_style)
            write_text_atomic(os.path.join(trainer.out, self._filename), graph.dump())
        finally:
            _config.config.keep_graph_on_report = bool(self._original_flag)
            self._flag_called = True

    def serialize(self, serializer: Any) -> None:
        """Save or load whether the graph was already written, and the value of
        ``keep_graph_on_report`` to restore (Chainer's keys ``_original_flag``,
        ``_flag_called``; ``_original_flag`` is ``None`` before ``initialize``)."""
        original = serializer('_original_flag', self._original_flag)
        self._original_flag = None if original is None else bool(original)
        self._flag_called = bool(serializer('_flag_called', self._flag_called))


# Chainer's name of the extension is the class itself (``isinstance(e, dump_graph)`` works).
dump_graph = DumpGraph
