"""Keras 3's public API as data, and how ``chainlet.keras`` compares with it.

``chainlet.keras`` is meant to run Keras 3 programs with only the import changed:
``keras.X.Y`` becomes ``chainlet.keras.X.Y``. This script keeps what Keras 3 offers in a data
file read from a real Keras release, so that the comparison runs without Keras at hand::

    python tools/keras_inventory.py             # the open gaps (exit status 1 if any)
    python tools/keras_inventory.py --all       # also the deliberate gaps, with their reasons
    python tools/keras_inventory.py --summary   # counts per module
    python tools/keras_inventory.py --new       # open gaps not in the known-gaps list

Files next to this script:

* ``keras_api.json``: the inventory. For every public module of the ``keras`` package (the
  generated API modules, not ``keras.src`` nor the TensorFlow-only ``keras._tf_keras``), every
  public name that is not a module, with its kind (``class``, ``function``, ``object``) and
  signature; classes give their constructor's, and the pseudo-modules ``keras.Layer``,
  ``keras.Model``, ``keras.Sequential`` list those classes' public methods and properties.
  A parameter is written ``name``, ``name=default`` (the default's ``repr``, cut to 40
  characters), ``*args``, ``**kwargs``, or the markers ``*`` (keyword-only parameters follow)
  and ``/`` (the ones before are positional-only).
* ``keras_api_deliberate.json``: ``{"module": reason}`` or ``{"module:name": reason}`` for what
  ``chainlet.keras`` leaves out on purpose (TensorFlow-only, JAX-only, ...).
* ``keras_api_known_gaps.txt``: the open gaps at the time of the last change, one
  ``module:name`` a line; ``tests/keras/test_keras_inventory.py`` fails on a gap that is not in
  it, and on a line whose gap was closed (delete the line: the list only shrinks).

How the data was made (``--collect OUT``), in a throwaway environment::

    python3 -m venv /tmp/venv-keras
    /tmp/venv-keras/bin/pip install keras numpy scipy jax   # the numpy backend imports jax
    KERAS_BACKEND=numpy /tmp/venv-keras/bin/python tools/keras_inventory.py \\
        --collect tools/keras_api.json

How a name is judged (``compare``): a missing module or name is ``missing``. A present callable
is ``signature`` (a mismatch) when a call that Keras's signature takes would fail on ours:
a positional parameter of Keras at a position where ours has another name, a keyword Keras
accepts that ours does not (a class accepts the keywords of every ``__init__`` up its bases as
long as each passes ``**kwargs`` on; chainlet's ``Layer.__init__`` takes only its own), or a
parameter ours requires that Keras does not (unless Keras's takes ``*args``/``**kwargs``).
A class's positions are compared up to ``CLASS_POSITIONS`` (Keras programs name the later
arguments); a keyword a constructor pops from ``**kwargs`` counts as accepted. Defaults are
recorded but not compared.
"""
from __future__ import annotations

import argparse
import importlib
import inspect
import json
import os
import sys
import warnings
from typing import Any, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
API_FILE = os.path.join(HERE, 'keras_api.json')
DELIBERATE_FILE = os.path.join(HERE, 'keras_api_deliberate.json')
KNOWN_GAPS_FILE = os.path.join(HERE, 'keras_api_known_gaps.txt')

# the classes whose methods are inventoried: pseudo-module name -> attribute of ``keras``
CLASS_MEMBERS = {'keras.Layer': 'Layer', 'keras.Model': 'Model', 'keras.Sequential': 'Sequential'}


# -- collecting (runs where Keras 3 imports)


def _param_strings(sig: inspect.Signature, skip_first: bool = False) -> list[str]:
    out: list[str] = []
    params = list(sig.parameters.values())
    if skip_first and params and params[0].kind in (params[0].POSITIONAL_ONLY,
                                                    params[0].POSITIONAL_OR_KEYWORD):
        params = params[1:]
    star_done = False
    for i, p in enumerate(params):
        if p.kind == p.VAR_POSITIONAL:
            out.append('*' + p.name)
            star_done = True
        elif p.kind == p.VAR_KEYWORD:
            out.append('**' + p.name)
        else:
            if p.kind == p.KEYWORD_ONLY and not star_done:
                out.append('*')
                star_done = True
            text = p.name
            if p.default is not p.empty:
                text += '=' + repr(p.default)[:40]
            out.append(text)
            if p.kind == p.POSITIONAL_ONLY and (i + 1 == len(params) or
                                                params[i + 1].kind != p.POSITIONAL_ONLY):
                out.append('/')
    return out


def _describe(obj: Any, method: bool = False) -> dict:
    if inspect.isclass(obj):
        entry: dict = {'kind': 'class'}
        target = obj
    elif isinstance(obj, property):
        return {'kind': 'property'}
    elif callable(obj):
        entry, target = {'kind': 'method' if method else 'function'}, obj
    else:
        return {'kind': 'object'}
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        return entry
    entry['params'] = _param_strings(sig, skip_first=method)
    return entry


def collect() -> dict:
    """The inventory of the Keras 3 that imports here (``KERAS_BACKEND=numpy`` is enough)."""
    import pkgutil
    import types

    import keras
    names = ['keras'] + sorted(m.name for m in pkgutil.walk_packages(keras.__path__, 'keras.')
                               if not any(p.startswith('_') or p == 'src'
                                          for p in m.name.split('.')[1:]))
    modules: dict = {}
    for name in names:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            mod = importlib.import_module(name)
        entries = {}
        for attr in sorted(dir(mod)):
            value = getattr(mod, attr)
            if attr.startswith('_') or isinstance(value, types.ModuleType):
                continue
            entries[attr] = _describe(value)
        modules[name] = entries
    for pseudo, attr in CLASS_MEMBERS.items():
        cls = getattr(keras, attr)
        entries = {}
        for member in sorted(dir(cls)):
            if member.startswith('_'):
                continue
            raw = inspect.getattr_static(cls, member)
            if isinstance(raw, (staticmethod, classmethod)):
                entries[member] = _describe(getattr(cls, member))
                entries[member]['kind'] = 'method'
            elif isinstance(raw, property) or not callable(raw):
                entries[member] = {'kind': 'property' if isinstance(raw, property)
                                   else 'object'}
            else:
                entries[member] = _describe(raw, method=True)
        modules[pseudo] = entries
    return {'keras_version': keras.__version__, 'modules': modules}


# -- comparing (runs anywhere chainlet imports)


def load(path: str = API_FILE) -> dict:
    with open(path) as f:
        return json.load(f)


def load_deliberate(path: str = DELIBERATE_FILE) -> dict:
    with open(path) as f:
        return {k: v for k, v in json.load(f).items() if not k.startswith('#')}


def load_known_gaps(path: str = KNOWN_GAPS_FILE) -> set:
    if not os.path.exists(path):
        return set()
    with open(path) as f:
        return {line.split('#')[0].strip() for line in f
                if line.split('#')[0].strip()}


def _ours(module: str) -> Any:
    """The chainlet object standing for a Keras module or pseudo-module (``None``: absent)."""
    root = os.path.join(HERE, '..')
    if root not in sys.path:
        sys.path.insert(0, root)
    if module in CLASS_MEMBERS:
        from chainlet import keras
        return getattr(keras, CLASS_MEMBERS[module])
    target = 'chainlet.keras' + module[len('keras'):]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            return importlib.import_module(target)
    except ImportError:
        pass
    # a module Keras has and chainlet offers as an attribute (``keras.ops.nn``)
    parent, _, leaf = target.rpartition('.')
    try:
        return getattr(importlib.import_module(parent), leaf, None)
    except ImportError:
        return None


def _instance(cls: Any) -> Any:
    """An instance of ``Layer``/``Model``/``Sequential``: attributes set by ``__init__``
    (``input_spec``) are members too."""
    try:
        return cls()
    except Exception:  # a class that cannot be made bare: its class attributes only
        return None


def _has_attribute(obj: Any, name: str) -> bool:
    try:
        return hasattr(obj, name)
    except Exception:  # a property that needs a built model: it exists
        return True


def _parse(params: list[str]) -> tuple[list[str], set, bool, bool, set]:
    """``(positional names, all names, has *args, has **kwargs, required names)``."""
    positional, names, required = [], set(), set()
    var_pos = var_kw = kw_only = False
    for p in params:
        if p == '/':
            continue
        if p == '*':
            kw_only = True
        elif p.startswith('**'):
            var_kw = True
        elif p.startswith('*'):
            var_pos = kw_only = True
        else:
            name = p.split('=')[0]
            names.add(name)
            if '=' not in p:
                required.add(name)
            if not kw_only:
                positional.append(name)
    return positional, names, var_pos, var_kw, required


def _closed_layer_base() -> Any:
    from chainlet.keras.engine.base_layer import Layer
    return Layer


def _our_params(obj: Any, method: bool) -> Optional[tuple]:
    """Our signature, parsed; for a class the keywords of its ``__init__`` chain are merged."""
    try:
        if inspect.isclass(obj) and '__init__' in getattr(obj, '__dict__', {}) or \
                inspect.isclass(obj) and any('__init__' in vars(k) for k in obj.__mro__[1:-1]):
            # A class's own __init__ (less self): Python 3.10's inspect.signature(cls) stops at
            # a metaclass or __new__ taking (*args, **kwargs), where 3.11 reads __init__.
            sig = inspect.signature(obj.__init__)
            sig = sig.replace(parameters=list(sig.parameters.values())[1:])
        else:
            sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    # a method looked up on the class is a plain function (drop self); a classmethod or
    # staticmethod comes bound or plain with no self to drop
    skip = method and not inspect.ismethod(obj) and next(iter(sig.parameters), '') == 'self'
    positional, names, var_pos, var_kw, required = _parse(_param_strings(sig, skip))
    if inspect.isclass(obj) and var_kw:
        closed = _closed_layer_base()
        var_kw = True
        for base in obj.__mro__[1:]:
            init = base.__dict__.get('__init__')
            if init is None:
                continue
            if base is object:
                break
            try:
                _, more, _, more_kw, _ = _parse(_param_strings(inspect.signature(init), True))
            except (TypeError, ValueError):
                break
            names |= more
            if base is closed or not more_kw:
                var_kw = False
                break
    return positional, names, var_pos, var_kw, required


def _popped_keywords(obj: Any) -> set:
    """Keywords a constructor takes out of ``**kwargs`` itself (``kwargs.pop('lora_rank',
    None)``, or a loop over a tuple of names that pops each): accepted, though unnamed."""
    import re
    found: set = set()
    for base in getattr(obj, '__mro__', ()):
        init = base.__dict__.get('__init__')
        if init is None or base is object:
            continue
        try:
            source = inspect.getsource(init)
        except (OSError, TypeError):
            continue
        found |= set(re.findall(r"kwargs\.pop\(\s*'(\w+)'", source))
        for names in re.findall(r"for \w+ in \(([^)]*)\):\s*\n\s*kwargs\.pop", source):
            found |= set(re.findall(r"'(\w+)'", names))
    return found


# A class's positional parameters are compared up to here: Keras programs pass the first few
# positionally (Dense(64, 'relu'), Conv2D(32, 3, 2, 'same')) and keywords after them.
CLASS_POSITIONS = 4


def _signature_problems(theirs: list[str], obj: Any, method: bool) -> list[str]:
    ours = _our_params(obj, method)
    if ours is None:
        return []
    my_pos, my_names, my_var_pos, my_var_kw, my_required = ours
    if inspect.isclass(obj):
        my_names = my_names | _popped_keywords(obj)
    their_pos, their_names, their_var_pos, their_var_kw, their_required = _parse(theirs)
    if inspect.isclass(obj):
        their_pos = their_pos[:CLASS_POSITIONS]
    found = []
    for i, name in enumerate(their_pos):
        if i < len(my_pos):
            if my_pos[i] != name:
                found.append(f'position {i}: {name} (ours: {my_pos[i]})')
                break
        elif not my_var_pos:
            found.append(f'position {i}: {name} missing')
            break
    for name in sorted(their_names - my_names):
        if not my_var_kw:
            found.append(f'keyword {name} missing')
    if not (their_var_pos or their_var_kw):  # else Keras's call may pass it through them
        for name in sorted(my_required - their_required):
            found.append(f'ours requires {name}')
    return found


def compare(api: Optional[dict] = None) -> list[tuple[str, str, str]]:
    """Every entry of the inventory that ``chainlet.keras`` does not match.

    Returns:
        ``(key, status, detail)`` with ``key`` ``module`` (a whole module missing) or
        ``module:name``, ``status`` ``'missing'``, ``'signature'`` or ``'deliberate'``, and the
        detail (the mismatches, or the reason).
    """
    api = api if api is not None else load()
    deliberate = load_deliberate()
    out = []
    for module, entries in api['modules'].items():
        reason = deliberate.get(module)
        if reason is not None:
            out.append((module, 'deliberate', reason))
            continue
        mod = _ours(module)
        if mod is None:
            out.append((module, 'missing', f'module ({len(entries)} names)'))
            continue
        method = module in CLASS_MEMBERS
        instance = _instance(mod) if method else None
        for name, entry in entries.items():
            key = f'{module}:{name}'
            if key in deliberate:
                out.append((key, 'deliberate', deliberate[key]))
                continue
            if not hasattr(mod, name) and not (instance is not None and
                                               _has_attribute(instance, name)):
                out.append((key, 'missing', entry['kind']))
                continue
            if 'params' not in entry or entry['kind'] in ('property', 'object'):
                continue
            obj = getattr(mod, name)
            if not callable(obj):
                out.append((key, 'signature', f'not callable here ({type(obj).__name__})'))
                continue
            problems = _signature_problems(entry['params'], obj, method)
            if problems:
                out.append((key, 'signature', '; '.join(problems)))
    return out


def summary(api: dict, gaps: list) -> list[tuple[str, int, int, int, int]]:
    """``(module, names, missing, signature, deliberate)`` per module."""
    rows = []
    for module, entries in api['modules'].items():
        mine = [g for g in gaps if g[0] == module or g[0].startswith(module + ':')]
        whole = [g for g in mine if g[0] == module]
        if whole:
            n = len(entries)
            counts = {s: n if whole[0][1] == s else 0
                      for s in ('missing', 'signature', 'deliberate')}
        else:
            counts = {s: sum(1 for g in mine if g[1] == s)
                      for s in ('missing', 'signature', 'deliberate')}
        rows.append((module, len(entries), counts['missing'], counts['signature'],
                     counts['deliberate']))
    return rows


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--collect', metavar='OUT_JSON',
                        help='write the inventory of the Keras that imports here')
    parser.add_argument('--all', action='store_true', help='also list the deliberate gaps')
    parser.add_argument('--summary', action='store_true', help='counts per module')
    parser.add_argument('--new', action='store_true',
                        help='only the open gaps missing from the known-gaps list')
    parser.add_argument('--write-known-gaps', action='store_true',
                        help='rewrite the known-gaps list with the open gaps of now')
    args = parser.parse_args(argv)
    if args.collect:
        data = collect()
        with open(args.collect, 'w') as f:
            json.dump(data, f, indent=0, sort_keys=True)
            f.write('\n')
        return 0
    api = load()
    gaps = compare(api)
    open_gaps = [g for g in gaps if g[1] != 'deliberate']
    if args.write_known_gaps:
        with open(KNOWN_GAPS_FILE, 'w') as f:
            f.write(f'# Open gaps of chainlet.keras against Keras {api["keras_version"]} '
                    f'(tools/keras_inventory.py): delete a line when its gap is closed.\n')
            for key, status, _ in sorted(open_gaps):
                f.write(f'{key}  # {status}\n')
        return 0
    if args.summary:
        print(f'{"module":<40} {"names":>6} {"missing":>8} {"signature":>10} '
              f'{"deliberate":>11}')
        for row in summary(api, gaps):
            print(f'{row[0]:<40} {row[1]:>6} {row[2]:>8} {row[3]:>10} {row[4]:>11}')
    else:
        known = load_known_gaps() if args.new else set()
        for key, status, detail in gaps:
            if status == 'deliberate' and not args.all:
                continue
            if key in known:
                continue
            print(f'{key}  {status}: {detail}')
    total = sum(len(v) for v in api['modules'].values())
    print(f'# Keras {api["keras_version"]}: {len(api["modules"])} modules, {total} names; '
          f'{len(open_gaps)} open gaps '
          f'({sum(1 for g in open_gaps if g[1] == "missing")} missing, '
          f'{sum(1 for g in open_gaps if g[1] == "signature")} signature), '
          f'{len(gaps) - len(open_gaps)} deliberate', file=sys.stderr)
    return 1 if open_gaps else 0


if __name__ == '__main__':
    sys.exit(main())
