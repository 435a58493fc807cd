"""Checks for the arguments of the public entry points (the router's methods, ``execute``).

Ordinary misuse (``retrieve(None)``, ``retrieve("x", k="5")``, ``add_callable(...,
source_type="measured")``) is an :class:`~schemarouter.errors.ArgumentError` that names the
method, the argument and what it takes, never a ``TypeError`` or ``AttributeError`` from
deep inside. Text that reaches the models is normalized: a lone surrogate (``"\\ud800"``,
which no encoding can write and tokenizers refuse) becomes U+FFFD.
"""

from __future__ import annotations

import difflib
import math
import numbers
import os
import re
from collections.abc import Callable, Iterable, Mapping
from enum import Enum
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, model_validator

from schemarouter.contracts import base_url_problem
from schemarouter.errors import ArgumentError

__all__ = [
    "KnownKeys",
    "check_base_url",
    "check_callable",
    "check_flag",
    "check_instance",
    "check_keywords",
    "check_name",
    "check_path",
    "check_positive_int",
    "check_seconds",
    "check_text",
    "enum_value",
    "enum_values",
    "fold_width",
    "normalize_text",
]

E = TypeVar("E", bound=Enum)
T = TypeVar("T")

_SURROGATE = re.compile("[\ud800-\udfff]")


def _refuse(method: str, name: str, wanted: str, value: Any) -> ArgumentError:
    shown = repr(value)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return ArgumentError(
        f"{name} must be {wanted}, got {type(value).__name__} {shown}",
        where=f"{method}({name}=...)",
        hint=f"Pass {name} as {wanted}",
    )


def normalize_text(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (a Python ``str`` can hold
    one, from a ``"\\ud800"`` JSON escape or a broken decode; UTF-8 cannot)."""
    return _SURROGATE.sub("\ufffd", text) if not text.isascii() else text


#: Full-width ASCII forms (U+FF01-FF5E) and the ideographic space, to ASCII: what a Korean,
#: Japanese or Chinese input method types in full-width mode ("ＧａＮ", "ＯＲＤ－１２３").
_WIDTH = {0x3000: " ", **{code: chr(code - 0xFEE0) for code in range(0xFF01, 0xFF5F)}}


def fold_width(text: str) -> str:
    """``text`` with full-width ASCII letters, digits, signs and spaces as ASCII ones. The
    encoder read "band gap of ＧａＮ" as another request than "band gap of GaN" (BM25's
    tokens were folded already, its vectors not), and a plan bound "ＯＲＤ－１２３" as written,
    which no ``^ORD-\\d+$`` pattern takes. Nothing else changes (Hangul, kana, Han, and the
    half-width forms of U+FF61 on are left as written)."""
    return text if text.isascii() else text.translate(_WIDTH)


def check_text(value: Any, *, method: str, name: str = "query") -> str:
    """A query or request text: a ``str``, normalized (:func:`normalize_text`) and with
    full-width ASCII forms folded (:func:`fold_width`)."""
    if not isinstance(value, str):
        raise _refuse(method, name, "a str", value)
    return fold_width(normalize_text(value))


def check_name(value: Any, *, method: str, name: str) -> str:
    """An id (route, provider): a non-empty ``str``."""
    if not isinstance(value, str) or not value:
        raise _refuse(method, name, "a non-empty str", value)
    return value


def check_positive_int(value: Any, *, method: str, name: str) -> int:
    """An int (a numpy integer too) of at least 1; ``True`` is not one."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise _refuse(method, name, "an int of at least 1", value)
    return int(value)


def check_seconds(value: Any, *, method: str, name: str) -> float:
    """A finite, non-negative number of seconds."""
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not math.isfinite(value)
        or value < 0
    ):
        raise _refuse(method, name, "a finite number of seconds, at least 0", value)
    return float(value)


def check_flag(value: Any, *, method: str, name: str) -> bool:
    if not isinstance(value, bool):
        raise _refuse(method, name, "True or False", value)
    return value


def check_instance(
    value: Any, kind: type[T] | tuple[type, ...], *, method: str, name: str, optional: bool = False
) -> T:
    """``value`` if it is an instance of ``kind`` (or ``None`` where ``optional``)."""
    if value is None and optional:
        return value  # type: ignore[return-value]
    if not isinstance(value, kind):
        kinds = kind if isinstance(kind, tuple) else (kind,)
        wanted = " or ".join(k.__name__ for k in kinds) + (" or None" if optional else "")
        raise _refuse(method, name, f"of type {wanted}", value)
    return value  # type: ignore[return-value]


def check_base_url(
    value: Any, *, method: str, name: str = "base_url", optional: bool = False
) -> Any:
    """``value`` if it is a base URL an operation's path can be joined to (or ``None`` where
    ``optional``): refused with why (:func:`~schemarouter.contracts.base_url_problem`)."""
    check_instance(value, str, method=method, name=name, optional=optional)
    problem = None if value is None else base_url_problem(value)
    if problem:
        raise ArgumentError(
            problem,
            where=f"{method}({name}=...)",
            hint="Pass the API's root, such as https://api.example.com/v2",
        )
    return value


def check_path(value: Any, *, method: str, name: str) -> Path:
    """A file or folder path: a ``str`` or ``os.PathLike`` without NUL bytes."""
    if not isinstance(value, str | os.PathLike):
        raise _refuse(method, name, "a path (str or os.PathLike)", value)
    path = Path(value)
    if "\0" in str(path):
        raise _refuse(method, name, "a path without NUL bytes", value)
    return path


def enum_value(value: Any, kind: type[E], *, method: str, name: str) -> E:
    """``kind(value)`` for a member or its value (``"read"`` -> ``Effect.READ``)."""
    try:
        return kind(value)
    except (ValueError, TypeError):
        options = ", ".join(repr(m.value) for m in kind)
        raise _refuse(method, name, f"one of {options}", value) from None


def enum_values(value: Any, kind: type[E], *, method: str, name: str) -> frozenset[E]:
    """A set of ``kind`` members from an iterable of members or values."""
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise _refuse(method, name, f"an iterable of {kind.__name__} values", value)
    return frozenset(enum_value(v, kind, method=method, name=name) for v in value)


def check_keywords(
    options: Mapping[str, object], known: frozenset[str], method: Callable[..., object]
) -> None:
    """Refuse a keyword of ``options`` that is none of ``known`` (the keys of the TypedDict
    that ``method`` unpacks), with Python's own ``TypeError``, as ``method`` would have had it
    declared them one by one."""
    for name in options:
        if name not in known:
            raise TypeError(f"{method.__qualname__}() got an unexpected keyword argument {name!r}")


def check_callable(value: Any, *, method: str, name: str, optional: bool = False) -> Any:
    if value is None and optional:
        return None
    if not callable(value):
        raise _refuse(method, name, "a callable" + (" or None" if optional else ""), value)
    return value


#: Keys a caller writes for a field of another name (``PlanRequest(request=...)``, as
#: ``router.plan(request)`` names its argument, where the field is ``query``).
_MEANT = {"request": "query", "text": "query", "q": "query"}


class KnownKeys(BaseModel):
    """A frozen model that refuses a key it does not have by naming the field meant and its
    fields (``PlanRequest(request=...)``: did you mean 'query'?), not only as pydantic's
    "Extra inputs are not permitted"."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _known_keys(cls, data: Any) -> Any:
        if isinstance(data, Mapping):
            fields = list(cls.model_fields)
            for key in data:
                if isinstance(key, str) and key not in fields:
                    close = difflib.get_close_matches(key, fields, n=1, cutoff=0.6)
                    close = close or [m for m in [_MEANT.get(key)] if m in fields]
                    meant = f"did you mean {close[0]!r}? " if close else ""
                    raise ValueError(
                        f"{cls.__name__} has no field {key[:80]!r}: {meant}its fields are "
                        f"{', '.join(fields)}"
                    )
        return data
