"""``OnceTrigger``: fire once, at the first call (and optionally once more after a resume).

Example:
    >>> from chainlet.training.triggers import OnceTrigger
    >>> trigger = OnceTrigger()
    >>> trigger(None), trigger(None), trigger.finished
    (True, False, True)
"""
from __future__ import annotations

import warnings
from typing import Any


class OnceTrigger:
    """Fire at the first call only.

    Args:
        call_on_resume: Also fire at the first call after the trainer was resumed from a
            snapshot taken after the trigger had fired.
    """

    def __init__(self, call_on_resume: bool = False) -> None:
        self._flag_first = True
        self._flag_resumed = call_on_resume

    @property
    def finished(self) -> bool:
        """True when the trigger will not fire again."""
        return not (self._flag_first or self._flag_resumed)

    def __call__(self, trainer: Any) -> bool:
        """Return ``True`` at the first call (see the class docstring)."""
        fire = not self.finished
        self._flag_first = False
        self._flag_resumed = False
        return fire

    def serialize(self, serializer: Any) -> None:
        """Save or load whether the trigger has fired.

        A snapshot without the flag (written before it was saved) is taken as one made after
        the first call, with a warning, as Chainer does.
        """
        try:
            self._flag_first = bool(serializer('_flag_first', self._flag_first))
        except KeyError:
            warnings.warn('OnceTrigger: the snapshot has no _flag_first; the trigger is taken '
                          'to have fired already (wrong if the snapshot was taken before its '
                          'first call)', stacklevel=2)
            self._flag_first = False
