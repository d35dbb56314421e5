"""``BinaryHierarchicalSoftmax``: softmax over a vocabulary factored along a binary tree
(Morin and Bengio, 2005), with :meth:`~BinaryHierarchicalSoftmax.create_huffman_tree` to build
the tree from word counts.

Each internal node ``n`` of the tree owns a row ``W[n]``; the probability of a word is the
product, along its path from the root, of ``sigmoid(code * W[n] . x)`` with ``code = +1`` for a
left turn and ``-1`` for a right one, so the probabilities of all words sum to 1. The loss is
``-log p(t | x)`` summed over the batch, written with chainlet functions (``embed_id``,
``softplus``), so it can be differentiated any number of times.

:class:`TreeParser` numbers the internal nodes in pre-order and gives each word its path and
codes, and each node its children (``parent2child``: internal child ids, ``node2word``: word
children, ``-1`` where there is none).
"""
from __future__ import annotations

import heapq
import itertools
from typing import Any, Dict, Mapping, Tuple

import numpy

from chainlet import backend, initializers
from chainlet.functions.activation.softplus import softplus
from chainlet.functions.connection.embed_id import embed_id
from chainlet.functions.math.sum import sum as _sum
from chainlet.link import Link
from chainlet.links import _util
from chainlet.parameter import Parameter
from chainlet.variable import Variable


class TreeParser:
    """Walks a binary tree of nested 2-tuples whose leaves are word ids.

    Example:
        >>> parser = TreeParser()
        >>> parser.parse(((0, (1, 2)), (3, 4)))
        >>> parser.size(), parser.get_paths()[1].tolist(), parser.get_codes()[1].tolist()
        (4, [0, 1, 2], [1.0, -1.0, 1.0])
    """

    def __init__(self, dtype: Any = numpy.float32) -> None:
        self.dtype = numpy.dtype(dtype)
        self.next_id = 0

    def size(self) -> int:
        """Number of internal nodes."""
        return self.next_id

    def get_paths(self) -> Dict[Any, numpy.ndarray]:
        """Word to the int32 ids of the internal nodes from the root to it."""
        return self.paths

    def get_codes(self) -> Dict[Any, numpy.ndarray]:
        """Word to the turns along its path (``+1`` left, ``-1`` right)."""
        return self.codes

    def get_parent2child(self) -> Dict[int, Tuple[int, int]]:
        """Internal node to the ids of its (left, right) internal children, ``-1`` for a leaf."""
        return self.parent2child

    def get_node2word(self) -> Dict[int, Tuple[Any, Any]]:
        """Internal node to its (left, right) word children, ``-1`` for an internal child."""
        return self.node2word

    def parse(self, tree: Any) -> None:
        """Number the internal nodes of ``tree`` (pre-order) and record the paths."""
        self.next_id = 0
        self.paths: Dict[Any, numpy.ndarray] = {}
        self.codes: Dict[Any, numpy.ndarray] = {}
        self.parent2child: Dict[int, Tuple[int, int]] = {}
        self.node2word: Dict[int, Tuple[Any, Any]] = {}
        # An explicit stack instead of recursion, so that deep (Huffman) trees are fine:
        # entries are (node, path, code) to visit.
        stack: list = [(tree, [], [], None)]
        while stack:
            node, path, code, parent_slot = stack.pop()
            if isinstance(node, tuple):
                if len(node) != 2:
                    raise ValueError(f'TreeParser: every internal node must have two children, '
                                     f'got {node!r}')
                node_id = self.next_id
                self.next_id += 1
                if parent_slot is not None:
                    parent, side = parent_slot
                    self._set_child(parent, side, node_id, -1)
                self.parent2child[node_id] = (-1, -1)
                self.node2word[node_id] = (-1, -1)
                left, right = node
                # Right first on the stack, so that the left subtree is numbered first.
                stack.append((right, path + [node_id], code + [-1.0], (node_id, 1)))
                stack.append((left, path + [node_id], code + [1.0], (node_id, 0)))
            else:
                if parent_slot is None:
                    raise ValueError('TreeParser: the tree must have at least one internal node')
                parent, side = parent_slot
                self._set_child(parent, side, -1, node)
                self.paths[node] = numpy.array(path, dtype=numpy.int32)
                self.codes[node] = numpy.array(code, dtype=self.dtype)

    def _set_child(self, parent: int, side: int, child_id: int, word: Any) -> None:
        ids = list(self.parent2child[parent])
        words = list(self.node2word[parent])
        ids[side] = child_id
        words[side] = word
        self.parent2child[parent] = (ids[0], ids[1])
        self.node2word[parent] = (words[0], words[1])


class _PathTable:
    """The paths and codes of all words, flattened: word ``w`` owns ``paths[begins[w]:
    begins[w + 1]]`` (and the same slice of ``codes``); also the child tables for sampling."""

    def __init__(self, parser: TreeParser, dtype: numpy.dtype) -> None:
        paths, codes = parser.get_paths(), parser.get_codes()
        n_words = max(paths) + 1
        lengths = numpy.zeros(n_words, numpy.int32)
        for word, path in paths.items():
            lengths[word] = len(path)
        self.begins = numpy.concatenate([[0], numpy.cumsum(lengths)]).astype(numpy.int32)
        self.paths = numpy.zeros(int(self.begins[-1]), numpy.int32)
        self.codes = numpy.zeros(int(self.begins[-1]), dtype)
        for word in paths:
            begin, end = self.begins[word], self.begins[word + 1]
            self.paths[begin:end] = paths[word]
            self.codes[begin:end] = codes[word]
        size = parser.size()
        self.parent2child = numpy.array([parser.get_parent2child()[n] for n in range(size)],
                                        numpy.int32).reshape(size, 2)
        self.node2word = numpy.array([parser.get_node2word()[n] for n in range(size)],
                                     numpy.int32).reshape(size, 2)

    def visit(self, visitor: Any) -> None:
        for name in ('begins', 'paths', 'codes', 'parent2child', 'node2word'):
            setattr(self, name, visitor.visit_array(getattr(self, name)))


class BinaryHierarchicalSoftmax(Link):
    """Hierarchical softmax loss over a binary tree of word ids ``0 .. n_words - 1``.

    Args:
        in_size: Dimension of the input vectors.
        tree: The tree as nested 2-tuples with word ids at the leaves (see
            :meth:`create_huffman_tree`).
        dtype: dtype of ``W`` (default ``chainlet.config.dtype`` or float32).

    Attributes:
        W: One row per internal node, ``(n_nodes, in_size)``, uniform in ``[-1, 1)`` at the
            start.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> tree = L.BinaryHierarchicalSoftmax.create_huffman_tree({0: 5, 1: 3, 2: 1})
        >>> hsm = L.BinaryHierarchicalSoftmax(4, tree)
        >>> x = np.ones((1, 4), np.float32)
        >>> losses = [float(hsm(x, np.array([w], np.int32)).array) for w in range(3)]
        >>> round(float(np.exp(-np.array(losses)).sum()), 5)      # the probabilities sum to 1
        1.0
    """

    def __init__(self, in_size: int, tree: Any, dtype: Any = None) -> None:
        super().__init__()
        in_size = _util.check_size('BinaryHierarchicalSoftmax', 'in_size', in_size)
        dtype = _util.resolve_dtype(dtype=dtype)
        parser = TreeParser(dtype)
        parser.parse(tree)
        self._func = _PathTable(parser, dtype)
        with self.init_scope():
            self.W = Parameter(initializers.Uniform(1, dtype), (parser.size(), in_size))

    def device_resident_accept(self, visitor: Any) -> None:
        super().device_resident_accept(visitor)
        self._func.visit(visitor)  # the path tables move with the link

    @staticmethod
    def create_huffman_tree(word_counts: Mapping[Any, float]) -> Any:
        """Build a Huffman tree: frequent words get short paths.

        Args:
            word_counts: Word to count (or frequency).

        Returns:
            The tree as nested 2-tuples whose leaves are the words.

        Example:
            >>> BinaryHierarchicalSoftmax.create_huffman_tree({'a': 3, 'b': 1, 'c': 1})
            (('b', 'c'), 'a')
        """
        if len(word_counts) == 0:
            raise ValueError('BinaryHierarchicalSoftmax.create_huffman_tree: empty vocabulary')
        order = itertools.count()  # breaks ties between equal counts, first come first
        heap = [(count, next(order), word) for word, count in word_counts.items()]
        heapq.heapify(heap)
        while len(heap) > 1:
            count1, _, node1 = heapq.heappop(heap)
            count2, _, node2 = heapq.heappop(heap)
            heapq.heappush(heap, (count1 + count2, next(order), (node1, node2)))
        return heap[0][2]

    def forward(self, x: Any, t: Any) -> Variable:
        """Sum over the batch of ``-log p(t_i | x_i)``.

        Args:
            x: Inputs of shape ``(batch, in_size)``.
            t: Word ids (int) of shape ``(batch,)``.

        Returns:
            A 0-d Variable.
        """
        table = self._func
        t_host = backend.to_cpu(getattr(t, 'array', t)).astype(numpy.int64).ravel()
        begins = backend.to_cpu(table.begins)
        n_words = len(begins) - 1
        if len(t_host) and (t_host.min() < 0 or t_host.max() >= n_words):
            raise ValueError(f'BinaryHierarchicalSoftmax: argument t: expected word ids in '
                             f'[0, {n_words}), got {t_host.tolist()}')
        lengths = begins[t_host + 1] - begins[t_host]
        # Flat index of every (example, node on its path) pair.
        flat = numpy.concatenate([numpy.arange(begins[w], begins[w + 1]) for w in t_host]
                                 or [numpy.zeros(0, numpy.int64)])
        example = numpy.repeat(numpy.arange(len(t_host)), lengths)
        xp = self.xp
        nodes = table.paths[xp.asarray(flat)]
        codes = table.codes[xp.asarray(flat)]
        w = embed_id(nodes, self.W)
        xs = x[xp.asarray(example)]
        scores = _sum(w * xs, axis=1) * codes.astype(w.dtype, copy=False)
        return _sum(softplus(-scores))

    def sample(self, x: Any) -> Any:
        """Draw a word for each row of ``x`` from the model's distribution.

        Args:
            x: Inputs of shape ``(batch, in_size)`` (Variable or array).

        Returns:
            An int32 array of shape ``(batch,)`` on the link's device.
        """
        xp = self.xp
        table = self._func
        x = getattr(x, 'array', x)
        W = self.W.array
        batch = x.shape[0]
        node = xp.zeros(batch, numpy.int32)
        words = xp.full(batch, -1, numpy.int32)
        active = xp.ones(batch, bool)
        while bool(active.any()):
            rows = xp.nonzero(active)[0]
            score = (W[node[rows]] * x[rows]).sum(axis=1)
            p_left = 1 / (1 + xp.exp(-score))
            side = (xp.random.rand(len(rows)) >= p_left).astype(numpy.int32)  # 0 left
            child = table.parent2child[node[rows], side]
            leaf = child < 0
            words[rows[leaf]] = table.node2word[node[rows[leaf]], side[leaf]]
            node[rows[~leaf]] = child[~leaf]
            active[rows[leaf]] = False
        return words


__all__ = ['BinaryHierarchicalSoftmax', 'TreeParser']
