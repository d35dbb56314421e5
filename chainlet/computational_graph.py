"""Export of a computational graph to Graphviz DOT text.

:func:`build_computational_graph` walks back from output Variables through their creators and
returns a :class:`ComputationalGraph`, whose :meth:`~ComputationalGraph.dump` gives DOT text to
render with Graphviz (``dot -Tpng graph.dot -o graph.png``).

Example:
    >>> import numpy as np, chainlet, chainlet.functions as F
    >>> from chainlet import computational_graph as c
    >>> x = chainlet.Variable(np.ones((2, 3), np.float32), name='x')
    >>> y = F.sum(F.tanh(x))
    >>> g = c.build_computational_graph([y])
    >>> len(g.nodes), len(g.edges)
    (5, 4)
    >>> print(g.dump())
    digraph graphname {
      rankdir=TB;
      n0 [label="float32", shape="oval", fillcolor="#E0E0E0", style="filled"];
      n1 [label="Sum", shape="box", fillcolor="#6495ED", style="filled"];
      n2 [label="(2, 3), float32", shape="oval", fillcolor="#E0E0E0", style="filled"];
      n3 [label="Tanh", shape="box", fillcolor="#6495ED", style="filled"];
      n4 [label="x: (2, 3), float32", shape="oval", fillcolor="#E0E0E0", style="filled"];
      n1 -> n0;
      n2 -> n1;
      n3 -> n2;
      n4 -> n3;
    }
"""
from __future__ import annotations

import heapq
import itertools
from typing import Any, Iterable, Union

from chainlet.function_node import FunctionNode
from chainlet.variable import Variable, VariableNode

_VARIABLE_STYLES = {'default': {'shape': 'oval', 'fillcolor': '#E0E0E0', 'style': 'filled'}}
_FUNCTION_STYLES = {'default': {'shape': 'box', 'fillcolor': '#6495ED', 'style': 'filled'}}

Style = Union[None, str, dict]


def _resolve_style(style: Style, table: dict, base_shape: str, what: str) -> dict:
    if style is None:
        return {'shape': base_shape}
    if isinstance(style, str):
        if style not in table:
            raise ValueError(f'build_computational_graph: argument {what}: unknown style '
                             f'{style!r}; expected one of {sorted(table)}, a dict or None')
        return dict(table[style])
    if isinstance(style, dict):
        return {'shape': base_shape, **style}
    raise TypeError(f'build_computational_graph: argument {what}: expected a dict, a style '
                    f'name or None, got {type(style).__name__}')


def _quote(value: Any) -> str:
    text = str(value).replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n')
    return f'"{text}"'


class DotNode:
    """One node of the graph with its DOT attributes (Chainer's helper class).

    Args:
        node: A ``VariableNode`` or ``FunctionNode``.
        attribute: DOT attributes added to (and overriding) the defaults: the node's label
            (prefixed ``name: `` for a named variable when ``show_name``), shape ``oval`` for a
            variable and ``box`` for a function.
        show_name: Prefix a variable's label with its name.

    Example:
        >>> import numpy as np, chainlet
        >>> x = chainlet.Variable(np.zeros(2, dtype=np.float32), name='x')
        >>> DotNode(x.node, {'color': 'red'}).label.endswith(
        ...     '[label="x: (2), float32",shape="oval",color="red"];')
        True
    """

    def __init__(self, node: Union[VariableNode, FunctionNode], attribute: Any = None,
                 show_name: bool = True) -> None:
        if not isinstance(node, (VariableNode, FunctionNode)):
            raise TypeError(f'DotNode: argument node: expected a VariableNode or FunctionNode, '
                            f'got {type(node).__name__}')
        self.node = node
        self.id_ = id(node)
        self.attribute = {'label': node.label}
        if isinstance(node, VariableNode):
            if show_name and node.name is not None:
                self.attribute['label'] = f'{node.name}: {node.label}'
            self.attribute['shape'] = 'oval'
        else:
            self.attribute['shape'] = 'box'
        if attribute is not None:
            self.attribute.update(attribute)

    @property
    def label(self) -> str:
        """The DOT statement of the node: ``<id> [key="value",...];``."""
        body = ','.join(f'{key}={_quote(value)}' for key, value in self.attribute.items())
        return f'{self.id_} [{body}];'


class ComputationalGraph:
    """A computational graph: nodes (VariableNodes and FunctionNodes) and directed edges.

    Usually made by :func:`build_computational_graph`.

    Args:
        nodes: ``VariableNode`` and ``FunctionNode`` objects.
        edges: ``(source, destination)`` pairs of nodes, in the data-flow direction.
        variable_style: DOT attributes of variable nodes: ``'default'``, a dict or ``None``.
        function_style: DOT attributes of function nodes: ``'default'``, a dict or ``None``.
        rankdir: Graphviz layout direction: ``'TB'``, ``'BT'``, ``'LR'`` or ``'RL'``.
        remove_variable: Dump only function nodes, with an edge from each function to the
            functions that consume its outputs.
        show_name: Prefix variable labels with the variable's name when it has one.

    Attributes:
        nodes: The list of nodes.
        edges: The list of edges.
    """

    def __init__(self, nodes: list, edges: list, variable_style: Style = 'default',
                 function_style: Style = 'default', rankdir: str = 'TB',
                 remove_variable: bool = False, show_name: bool = True) -> None:
        if rankdir not in ('TB', 'BT', 'LR', 'RL'):
            raise ValueError(f"ComputationalGraph: argument rankdir: expected 'TB', 'BT', "
                             f"'LR' or 'RL', got {rankdir!r}")
        self.nodes = list(nodes)
        self.edges = list(edges)
        self.variable_style = _resolve_style(variable_style, _VARIABLE_STYLES, 'oval',
                                             'variable_style')
        self.function_style = _resolve_style(function_style, _FUNCTION_STYLES, 'box',
                                             'function_style')
        self.rankdir = rankdir
        self.remove_variable = remove_variable
        self.show_name = show_name

    def _label(self, node: Any) -> str:
        if isinstance(node, VariableNode):
            if self.show_name and node.name is not None:
                return f'{node.name}: {node.label}'
            return node.label
        return node.label

    def _function_edges(self) -> list:
        """Edges between functions: producer -> consumer, through the hidden variables."""
        in_graph = {id(n) for n in self.nodes}
        consumers: dict[int, list] = {}
        for src, dst in self.edges:
            if isinstance(src, VariableNode) and isinstance(dst, FunctionNode):
                consumers.setdefault(id(src), []).append(dst)
        edges = []
        seen = set()
        for src, dst in self.edges:
            if isinstance(src, FunctionNode) and isinstance(dst, VariableNode):
                for consumer in consumers.get(id(dst), ()):
                    key = (id(src), id(consumer))
                    if key not in seen and id(consumer) in in_graph:
                        seen.add(key)
                        edges.append((src, consumer))
        return edges

    def _to_dot(self) -> str:
        if self.remove_variable:
            nodes = [n for n in self.nodes if isinstance(n, FunctionNode)]
            edges = self._function_edges()
        else:
            nodes, edges = self.nodes, self.edges
        ids = {id(node): f'n{i}' for i, node in enumerate(nodes)}
        lines = ['digraph graphname {', f'  rankdir={self.rankdir};']
        for node in nodes:
            style = self.variable_style if isinstance(node, VariableNode) \
                else self.function_style
            attrs = {'label': self._label(node), **style}
            body = ', '.join(f'{key}={_quote(value)}' for key, value in attrs.items())
            lines.append(f'  {ids[id(node)]} [{body}];')
        for src, dst in edges:
            lines.append(f'  {ids[id(src)]} -> {ids[id(dst)]};')
        lines.append('}')
        return '\n'.join(lines)

    def dump(self, format: str = 'dot') -> str:
        """Return the graph as text in ``format`` (only ``'dot'``, Graphviz DOT, is supported).
        """
        if format != 'dot':
            raise UnsupportedFormatError(f"ComputationalGraph.dump: argument format: only 'dot' "
                                         f"is supported, got {format!r}")
        return self._to_dot()


class UnsupportedFormatError(ValueError, NotImplementedError):
    """:meth:`ComputationalGraph.dump` was asked for a format other than ``'dot'``.

    A ``ValueError`` (a wrong argument value) that is also the ``NotImplementedError`` Chainer
    raises there, so code written against either keeps working.
    """


def build_computational_graph(outputs: Iterable[Union[Variable, VariableNode]],
                              remove_split: bool = True, variable_style: Style = 'default',
                              function_style: Style = 'default', rankdir: str = 'TB',
                              remove_variable: bool = False,
                              show_name: bool = True) -> ComputationalGraph:
    """Collect the graph that produced ``outputs`` (walking back through creators).

    The walk is iterative (any depth works) and visits nodes from the highest rank down, so
    ``nodes`` lists outputs first and leaves last, in a deterministic order.

    Args:
        outputs: Output Variables or VariableNodes (one Variable is accepted as well).
        remove_split: Accepted for compatibility; there is no split node to remove.
        variable_style: DOT attributes of variables: ``'default'`` (grey ovals), a dict of
            Graphviz attributes, or ``None`` (plain ovals).
        function_style: DOT attributes of functions: ``'default'`` (blue boxes), a dict or
            ``None`` (plain boxes).
        rankdir: Graphviz layout direction (``'TB'``, ``'BT'``, ``'LR'``, ``'RL'``).
        remove_variable: Hide variables in the dump (edges go from function to function).
        show_name: Show variable names in labels.

    Returns:
        A :class:`ComputationalGraph`.

    Example:
        >>> import numpy as np, chainlet, chainlet.functions as F
        >>> from chainlet.computational_graph import build_computational_graph
        >>> x = chainlet.Variable(np.ones(3, np.float32))
        >>> g = build_computational_graph([F.exp(F.exp(x))], remove_variable=True)
        >>> print(g.dump())
        digraph graphname {
          rankdir=TB;
          n0 [label="Exp", shape="box", fillcolor="#6495ED", style="filled"];
          n1 [label="Exp", shape="box", fillcolor="#6495ED", style="filled"];
          n1 -> n0;
        }
    """
    if isinstance(outputs, (Variable, VariableNode)):
        outputs = [outputs]
    counter = itertools.count()
    heap: list = []
    seen: set = set()
    nodes: list = []
    edges: list = []

    def push(node: Any) -> None:
        if id(node) not in seen:
            seen.add(id(node))
            # Highest rank first; the counter breaks ties in discovery order (deterministic).
            heapq.heappush(heap, (-node.rank, next(counter), node))

    def add_node(node: Any) -> None:
        if id(node) not in added:
            added.add(id(node))
            nodes.append(node)

    added: set = set()
    for out in outputs:
        if isinstance(out, Variable):
            out = out.node
        elif not isinstance(out, VariableNode):
            raise TypeError(f'build_computational_graph: argument outputs: expected Variables '
                            f'or VariableNodes, got {type(out).__name__}')
        add_node(out)
        push(out)

    seen_edges: set = set()

    def add_edge(src: Any, dst: Any) -> None:
        add_node(src)
        key = (id(src), id(dst))
        if key not in seen_edges:  # x * x uses x twice but draws one edge
            seen_edges.add(key)
            edges.append((src, dst))
        push(src)

    while heap:
        node = heapq.heappop(heap)[2]
        if isinstance(node, VariableNode):
            if node.creator_node is not None:
                add_edge(node.creator_node, node)
        else:
            for input_node in node.inputs or ():
                add_edge(input_node, node)
    return ComputationalGraph(nodes, edges, variable_style, function_style, rankdir,
                              remove_variable, show_name)
