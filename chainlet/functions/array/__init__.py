"""Array manipulation: shapes, indexing, joining and splitting.

As in Chainer, the attributes of this package are its modules: ``chainlet.functions.array.X``
is the module that defines the function ``X`` and its FunctionNode classes. The functions
are re-exported by :mod:`chainlet.functions` (from ``_exports``).
"""
