"""The emulated ``cupyx.scipy`` package and its ``special`` module, computed by ``scipy.special``.

CuPy implements these functions itself; the emulator borrows SciPy's, so it needs SciPy (when
SciPy is missing, looking a function up raises ``AttributeError`` naming it, and chainlet's CPU
paths that need SciPy are skipped as well). Only the names CuPy 14.2's ``cupyx.scipy.special``
exports exist. Like CuPy's ufuncs, the functions take device arrays (on the current GPU) and
Python or NumPy scalars; a host array, list or tuple raises ``TypeError``. Results are device
arrays (a 0-d one where SciPy returns a scalar), dtypes as SciPy's type resolution gives them,
which is also CuPy's for its float32/float64 loops.
"""
from __future__ import annotations

import types

import numpy

# what CuPy 14.2's cupyx.scipy.special exports
SPECIAL_NAMES = frozenset('''
    round sinc cbrt cosdg cosm1 cotdg exp2 exp10 expm1 exprel log1p radian sindg tandg
    i0 i0e i1 i1e j0 j1 k0 k0e k1 k1e y0 y1 yn beta betainc betaincinv betaln binom
    entr huber kl_div pseudo_huber rel_entr digamma psi ellipeinc ellipj ellipk ellipkinc
    ellipkm1 erf erfc erfcinv erfcx erfinv exp1 expi expn gamma rgamma gammainc gammaincc
    gammainccinv gammaincinv gammaln multigammaln gammasgn lambertw loggamma log_softmax
    logsumexp lpmv poch polygamma softmax sph_harm spherical_yn boxcox boxcox1p expit
    inv_boxcox inv_boxcox1p log_expit logit bdtr bdtrc bdtri btdtr btdtri chdtr chdtrc chdtri
    fdtr fdtrc fdtri gdtr gdtrc log_ndtr nbdtr nbdtrc nbdtri ndtr ndtri pdtr pdtrc pdtri
    wright_bessel xlog1py xlogy zeta zetac
'''.split())
# the subpackages CuPy 14.2's cupyx.scipy has; only ``special`` is emulated
_SCIPY_SUBPACKAGES = frozenset(
    'fft fftpack interpolate linalg ndimage signal sparse spatial special stats'.split())


def _function(name: str, scipy_func):
    from . import _api
    qualname = f'cupyx.scipy.special.{name}'

    def f(*args, **kwargs):
        for a in list(args) + list(kwargs.values()):
            if _api._is_host(a):
                raise TypeError(f'Unsupported type {type(a)} (in {qualname})')
        device = _api.launch_device((args, kwargs), qualname)
        out = kwargs.get('out')
        res = scipy_func(*_api._unwrap(args, where=qualname),
                         **_api._unwrap(kwargs, where=qualname))
        return out if type(out) is _api.ndarray else _api._wrap(res, device)
    f.__name__ = f.__qualname__ = name
    f.__module__ = 'cupyx.scipy.special'
    f.__doc__ = f'``{qualname}``, computed by ``scipy.special.{name}`` on the host.'
    return f


class _SpecialModule(types.ModuleType):
    """``cupyx.scipy.special``: a CuPy 14.2 name resolves to SciPy's function, wrapped."""

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        if name not in SPECIAL_NAMES:
            raise AttributeError(f"module 'cupyx.scipy.special' has no attribute '{name}' "
                                 '(not in CuPy 14.2)')
        try:
            from scipy import special
        except ImportError:
            raise AttributeError(f"'cupyx.scipy.special.{name}' is emulated with "
                                 'scipy.special, and SciPy is not installed') from None
        # sinc is NumPy's in SciPy too
        func = numpy.sinc if name == 'sinc' else getattr(special, name, None)
        if func is None:
            raise AttributeError(f"'cupyx.scipy.special.{name}' is not emulated (this SciPy "
                                 'has no scipy.special.' + name + ')')
        value = _function(name, func)
        setattr(self, name, value)
        return value

    def __dir__(self):
        return sorted(set(super().__dir__()) | SPECIAL_NAMES)


class _ScipyPackage(types.ModuleType):
    """``cupyx.scipy``: ``special`` is emulated; CuPy's other subpackages are not."""

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        if name in _SCIPY_SUBPACKAGES:
            raise AttributeError(f"'cupyx.scipy.{name}' is not emulated")
        raise AttributeError(f"module 'cupyx.scipy' has no attribute '{name}' "
                             '(not in CuPy 14.2)')


def scipy_modules() -> dict:
    """``{'cupyx.scipy': ..., 'cupyx.scipy.special': ...}``."""
    package = _ScipyPackage('cupyx.scipy')
    package.__path__ = []
    package.special = _SpecialModule('cupyx.scipy.special')
    return {'cupyx.scipy': package, 'cupyx.scipy.special': package.special}
