"""``chainermn.global_except_hook``: chainlet.distributed's abort-on-exception hook.

chainlet's communicators install it by default in a job of several processes; ChainerMN's
opt-in switches are honoured too: ``add_hook()`` installs it, and so does ``import chainermn``
when ``CHAINERMN_FORCE_ABORT_ON_EXCEPTION`` is set.
"""
import os

from chainlet.distributed._except_hook import _hook as _global_except_hook  # noqa: F401
from chainlet.distributed._except_hook import global_except_hook as add_hook  # noqa: F401


def _add_hook_if_enabled() -> None:
    if os.environ.get('CHAINERMN_FORCE_ABORT_ON_EXCEPTION'):
        add_hook()
