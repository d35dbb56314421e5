"""``keras.utils.Progbar``: a text progress bar for custom loops, and ``keras.utils.Config``.

As Keras's: ``update(current, values)`` moves the bar to ``current`` and records metric
values, shown as running averages over the steps (weighted by the steps each update covers)
unless named in ``stateful_metrics`` (shown as given). ``verbose=1`` redraws one line (plain
lines when interactive logging is off or the output is not a terminal); ``verbose=2`` prints
one line when the target is reached.

Example:
    >>> import io
    >>> from chainlet.keras.progbar import Progbar
    >>> out = io.StringIO()
    >>> bar = Progbar(2, verbose=2, file=out)
    >>> bar.update(1, [('loss', 1.0)]); bar.update(2, [('loss', 3.0)])
    >>> 'loss: 2.0000' in out.getvalue()
    True
"""
from __future__ import annotations

import sys
import time
from typing import Any, Iterable, Optional

from chainlet.keras import config


class Progbar:
    """A progress bar.

    Args:
        target: Total number of steps (``None``: unknown).
        width: Width of the bar in characters.
        verbose: ``0`` silent, ``1`` a bar, ``2`` one line at the end.
        interval: Minimum seconds between redraws.
        stateful_metrics: Names of metrics shown as given, not averaged.
        unit_name: ``'step'`` or another unit for the rate.
        file: Where to print (``sys.stdout`` by default).
    """

    def __init__(self, target: Optional[int], width: int = 20, verbose: int = 1,
                 interval: float = 0.05, stateful_metrics: Optional[Iterable[str]] = None,
                 stateless_metrics: Optional[Iterable[str]] = None, unit_name: str = 'step',
                 file: Any = None) -> None:
        self.target, self.width, self.verbose = target, width, verbose
        self.interval, self.unit_name = interval, unit_name
        self.stateful_metrics = set(stateful_metrics or ())
        self._file = file
        self._values: dict = {}  # name -> [weighted sum, weight] or the stateful value
        self._order: list = []
        self._seen = 0
        self._start = self._last = time.time()
        self._finalized = False

    @property
    def file(self) -> Any:
        return self._file if self._file is not None else sys.stdout

    def update(self, current: int, values: Optional[list] = None,
               finalize: Optional[bool] = None) -> None:
        """Move to step ``current`` and record ``values`` (``[(name, value), ...]``)."""
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        for name, value in values or ():
            value = float(value)
            if name not in self._order:
                self._order.append(name)
            if name in self.stateful_metrics:
                self._values[name] = value
            else:
                steps = max(current - self._seen, 1)
                total = self._values.setdefault(name, [0.0, 0])
                total[0] += value * steps
                total[1] += steps
        self._seen = current
        now = time.time()
        if self.verbose == 0 or self._finalized:
            return
        if self.verbose == 1 and (finalize or now - self._last >= self.interval):
            interactive = config.is_interactive_logging_enabled() and \
                bool(getattr(self.file, 'isatty', lambda: False)())
            line = self._line(current, now, finalize)
            end = '\n' if finalize or not interactive else ''
            print(('\r' if interactive else '') + line, end=end, file=self.file, flush=True)
            self._last = now
        elif self.verbose == 2 and finalize:
            print(self._line(current, now, True), file=self.file, flush=True)
        self._finalized = bool(finalize)

    def add(self, n: int, values: Optional[list] = None) -> None:
        """Advance by ``n`` steps."""
        self.update(self._seen + n, values)

    def _line(self, current: int, now: float, finalize: bool) -> str:
        if self.target is not None:
            digits = len(str(self.target))
            done = int(self.width * min(current / max(self.target, 1), 1.0))
            bar = '=' * max(done - 1, 0) + ('=' if done >= self.width else '>' if done else '')
            head = f'{current:{digits}d}/{self.target} [{bar:<{self.width}}]'
        else:
            head = f'{current:7d}/Unknown'
        elapsed = now - self._start
        rate = elapsed / max(current, 1)
        timing = f'{elapsed:.0f}s {rate * 1000:.0f}ms/{self.unit_name}' if finalize else \
            f'ETA: {rate * max((self.target or current) - current, 0):.0f}s'
        parts = [head, timing]
        for name in self._order:
            value = self._values[name]
            if isinstance(value, list):
                value = value[0] / max(value[1], 1)
            parts.append(f'{name}: {value:.4f}')
        return ' - '.join(parts)


class Config:
    """An attribute dictionary (``keras.utils.Config``): ``c.x`` and ``c['x']`` are the same
    entry; ``freeze()`` makes it read-only.

    Example:
        >>> from chainlet.keras.progbar import Config
        >>> c = Config(lr=0.1)
        >>> c.epochs = 3
        >>> c['epochs'], c.lr, c.as_dict()
        (3, 0.1, {'lr': 0.1, 'epochs': 3})
    """

    __attrs__ = None

    def __init__(self, **kwargs: Any) -> None:
        object.__setattr__(self, 'config', dict(kwargs))
        object.__setattr__(self, '_frozen', False)

    @property
    def frozen(self) -> bool:
        return self._frozen

    def freeze(self) -> None:
        object.__setattr__(self, '_frozen', True)

    def unfreeze(self) -> None:
        object.__setattr__(self, '_frozen', False)

    def _check(self) -> None:
        if self._frozen:
            raise ValueError('Config: cannot change a frozen config (call unfreeze() first)')

    def __setattr__(self, name: str, value: Any) -> None:
        self._check()
        self.config[name] = value

    def __getattr__(self, name: str) -> Any:
        config = self.__dict__.get('config', {})
        if name in config:
            return config[name]
        raise AttributeError(f'Config has no entry {name!r}')

    def __setitem__(self, key: str, value: Any) -> None:
        self._check()
        self.config[key] = value

    def __getitem__(self, key: str) -> Any:
        return self.config[key]

    def __delitem__(self, key: str) -> None:
        self._check()
        del self.config[key]

    def __contains__(self, key: str) -> bool:
        return key in self.config

    def __len__(self) -> int:
        return len(self.config)

    def __iter__(self) -> Any:
        return iter(self.config)

    def keys(self) -> Any:
        return self.config.keys()

    def values(self) -> Any:
        return self.config.values()

    def items(self) -> Any:
        return self.config.items()

    def get(self, key: str, default: Any = None) -> Any:
        return self.config.get(key, default)

    def pop(self, *args: Any) -> Any:
        self._check()
        return self.config.pop(*args)

    def update(self, *args: Any, **kwargs: Any) -> None:
        self._check()
        self.config.update(*args, **kwargs)

    def as_dict(self) -> dict:
        return dict(self.config)

    def to_json(self) -> str:
        import json
        return json.dumps(self.config)

    def __repr__(self) -> str:
        return f'<Config {self.config}>'


__all__ = ['Config', 'Progbar']
