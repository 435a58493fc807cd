"""Switches read from the environment (``SCHEMAROUTER_BACKGROUND``)."""

from __future__ import annotations

import os

from schemarouter.errors import ArgumentError

__all__ = ["env_switch"]

_ON = frozenset({"1", "true", "yes", "on"})
_OFF = frozenset({"0", "false", "no", "off"})


def env_switch(name: str, *, default: bool) -> bool:
    """The on/off switch in environment variable ``name``: ``1``/``true``/``yes``/``on`` or
    ``0``/``false``/``no``/``off`` (any case, spaces around ignored), ``default`` where it is
    unset or empty; anything else is an :class:`ArgumentError` (``false`` once left it on)."""
    value = os.environ.get(name, "").strip().lower()
    if not value:
        return default
    if value in _ON:
        return True
    if value in _OFF:
        return False
    raise ArgumentError(
        f"{name}={os.environ[name][:40]!r} is not an on/off switch",
        where=f"environment variable {name}",
        hint="Set it to 1, true, yes or on, or to 0, false, no or off",
    )
