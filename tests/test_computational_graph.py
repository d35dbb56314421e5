import re
import shutil
import subprocess

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import computational_graph as C
from chainlet.function_node import FunctionNode
from chainlet.variable import VariableNode

NODE = re.compile(r'^  (n\d+) \[(.*)\];$')
EDGE = re.compile(r'^  (n\d+) -> (n\d+);$')
ATTR = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


def parse_dot(text):
    """A small structural parser for the DOT subset that dump() writes."""
    lines = text.split('\n')
    assert lines[0] == 'digraph graphname {' and lines[-1] == '}'
    assert re.match(r'^  rankdir=(TB|BT|LR|RL);$', lines[1])
    nodes, edges = {}, []
    for line in lines[2:-1]:
        m = NODE.match(line)
        if m:
            assert m.group(1) not in nodes
            nodes[m.group(1)] = dict(ATTR.findall(m.group(2)))
            continue
        m = EDGE.match(line)
        assert m, f'unexpected line {line!r}'
        edges.append((m.group(1), m.group(2)))
    for a, b in edges:
        assert a in nodes and b in nodes
    return nodes, edges


def known_graph():
    x = chainlet.Variable(np.ones((2, 3), np.float32), name='x')
    w = chainlet.Variable(np.full((2, 3), 2.0, np.float32), name='w')
    a = x * w
    b = a + x
    y = F.sum(b)
    return x, w, y


def test_known_graph_nodes_edges_and_dot():
    x, w, y = known_graph()
    g = C.build_computational_graph([y])
    assert len(g.nodes) == 8 and len(g.edges) == 8
    assert sum(isinstance(n, VariableNode) for n in g.nodes) == 5
    # Chainer's labels for the arithmetic nodes.
    assert sorted(n.label for n in g.nodes if isinstance(n, FunctionNode)) == \
        ['Sum', '_ * _', '_ + _']
    assert g.nodes[0] is y.node
    nodes, edges = parse_dot(g.dump())
    assert len(nodes) == 8 and len(edges) == 8
    labels = sorted(a['label'] for a in nodes.values())
    assert labels == ['(2, 3), float32', '(2, 3), float32', 'Sum', '_ * _', '_ + _', 'float32',
                      'w: (2, 3), float32', 'x: (2, 3), float32']
    shapes = {a['label']: a['shape'] for a in nodes.values()}
    assert shapes['_ * _'] == 'box' and shapes['x: (2, 3), float32'] == 'oval'
    by_label = {a['label']: n for n, a in nodes.items()}
    assert (by_label['x: (2, 3), float32'], by_label['_ * _']) in edges
    assert (by_label['x: (2, 3), float32'], by_label['_ + _']) in edges
    assert (by_label['Sum'], by_label['float32']) in edges


def test_remove_variable_gives_function_edges():
    _, _, y = known_graph()
    g = C.build_computational_graph([y], remove_variable=True)
    nodes, edges = parse_dot(g.dump())
    by_label = {a['label']: n for n, a in nodes.items()}
    assert sorted(by_label) == ['Sum', '_ * _', '_ + _']
    assert sorted(edges) == sorted([(by_label['_ * _'], by_label['_ + _']),
                                    (by_label['_ + _'], by_label['Sum'])])
    assert len(g.nodes) == 8  # the graph itself still has the variables


def test_styles_names_and_rankdir():
    x, _, y = known_graph()
    g = C.build_computational_graph(y, variable_style=None, function_style={'color': 'red'},
                                    rankdir='LR', show_name=False)
    text = g.dump()
    assert 'rankdir=LR;' in text and 'x: ' not in text
    nodes, _ = parse_dot(text)
    for attrs in nodes.values():
        if attrs['shape'] == 'box':
            assert attrs['color'] == 'red'
        else:
            assert set(attrs) == {'label', 'shape'}
    with pytest.raises(ValueError, match='unknown style'):
        C.build_computational_graph(y, variable_style='fancy')
    with pytest.raises(TypeError, match='function_style'):
        C.build_computational_graph(y, function_style=3)
    with pytest.raises(ValueError, match='rankdir'):
        C.build_computational_graph(y, rankdir='XY')
    with pytest.raises(ValueError, match="only 'dot'"):
        C.build_computational_graph(y).dump('png')
    with pytest.raises(TypeError, match='outputs'):
        C.build_computational_graph([np.ones(2)])


def test_quotes_in_names_are_escaped():
    x = chainlet.Variable(np.ones(2, np.float32), name='a "quoted"\nname')
    text = C.build_computational_graph([F.exp(x)]).dump()
    nodes, _ = parse_dot(text)
    assert any(a['label'].startswith(r'a \"quoted\"\nname') for a in nodes.values())


def test_shared_inputs_multiple_outputs_and_dropped_handles():
    x = chainlet.Variable(np.ones(3, np.float32))
    h = F.tanh(x)
    y1 = F.exp(h)
    y2 = h * h  # one edge from h to '_ * _', as in Chainer
    del h
    g = C.build_computational_graph([y1, y2.node])
    funcs = sorted(n.label for n in g.nodes if isinstance(n, FunctionNode))
    assert funcs == ['Exp', 'Tanh', '_ * _']
    assert len(g.nodes) == 7 and len(g.edges) == 6


def test_unreached_outputs_of_a_function_are_not_included():
    x = chainlet.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
    a, b = F.split_axis(x, 2, axis=0)
    y = F.exp(a)
    g = C.build_computational_graph([y])
    assert b.node not in g.nodes and a.node in g.nodes


def test_deep_graph_without_recursion():
    x = chainlet.Variable(np.ones(1, np.float32))
    h = x
    for _ in range(3000):
        h = h + 1.0
    g = C.build_computational_graph([h])
    assert len(g.nodes) == 6001 and len(g.edges) == 6000
    nodes, edges = parse_dot(g.dump())
    assert len(nodes) == 6001 and len(edges) == 6000


def test_leaf_output():
    x = chainlet.Variable(np.ones(1, np.float32))
    g = C.build_computational_graph([x])
    assert g.nodes == [x.node] and g.edges == []


def test_renders_with_graphviz_if_available(tmp_path):
    _, _, y = known_graph()
    text = C.build_computational_graph([y]).dump()
    dot = shutil.which('dot')
    if dot is not None:
        out = subprocess.run([dot, '-Tsvg'], input=text.encode(), capture_output=True,
                             check=True).stdout
        assert b'<svg' in out
        return
    graphviz = pytest.importorskip('graphviz')
    try:
        svg = graphviz.Source(text).pipe(format='svg')
    except graphviz.ExecutableNotFound:
        pytest.skip('the graphviz package is installed but the dot program is not')
    assert b'<svg' in svg


def test_dump_unsupported_format_is_value_and_not_implemented_error():
    # Chainer code catches NotImplementedError there; chainlet's convention is ValueError.
    y = chainlet.Variable(np.ones(2, np.float32)) * 2
    g = C.build_computational_graph([y])
    for exc in (ValueError, NotImplementedError, C.UnsupportedFormatError):
        with pytest.raises(exc, match="got 'graphml'"):
            g.dump('graphml')
