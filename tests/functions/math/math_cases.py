"""The declarative test of a one-input elementwise math function, shared by the modules here."""
import numpy as np

from chainlet.testing import PytestFunctionTestCase


class UnaryCase(PytestFunctionTestCase):
    """``func(x)`` against ``ref`` evaluated in float64, for ``x`` uniform in ``[low, high)``.

    A subclass sets ``func`` (the chainlet function) and ``ref`` (its NumPy or SciPy
    counterpart), both as static methods, and ``low``/``high`` where the domain asks; the
    shapes cover a matrix, a 0-d array and an empty array.
    """

    params = [{'shape': (3, 2)}, {'shape': ()}, {'shape': (0, 3)}]
    low, high = -1.0, 1.0

    def generate_inputs(self):
        return np.random.uniform(self.low, self.high, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return type(self).func(inputs[0]),

    def forward_expected(self, inputs):
        x, = inputs
        return np.asarray(type(self).ref(x.astype(np.float64))).astype(x.dtype),
