"""Chainer's graph optimizations: static sub-graphs that are recorded once and replayed.

As in Chainer, the decorator lives in the module of its name (``from
chainlet.graph_optimizations.static_graph import static_graph``, or ``chainlet.static_graph``) and
this package exports ``static_code``, which marks side-effect code that a static chain runs on
every call. See :mod:`chainlet.graph_optimizations.static_graph` for the design and
``docs/static_graph.md`` for the contract.
"""
from chainlet.graph_optimizations.static_graph import StaticGraphFallbackWarning  # noqa: F401
from chainlet.graph_optimizations.static_graph_utilities import static_code  # noqa: F401
