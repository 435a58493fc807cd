"""The keys a catalog takes at a place, for the hint of an unknown key.

``output_feilds`` in an endpoint was refused as "unknown key (not part of the contract)"
with only the schema command to go on (trial A); the hint now names the key meant, where one
is close, and the keys that place takes, read from the contracts themselves.
"""

from __future__ import annotations

import difflib
import re
from typing import Annotated, Any, get_args, get_origin

from pydantic import BaseModel

__all__ = ["unknown_key_hint"]

_PART = re.compile(r"\[\d+\]|\.")


def _model_of(annotation: Any) -> type[BaseModel] | None:
    """The model a field holds: itself, or inside ``X | None``, ``tuple[X, ...]``,
    ``list[X]`` or ``Annotated[X, ...]``."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    args = get_args(annotation)
    if get_origin(annotation) is Annotated:
        args = args[:1]
    for arg in args:
        model = _model_of(arg)
        if model is not None:
            return model
    return None


def unknown_key_hint(root: type[BaseModel], loc: str) -> str | None:
    """The hint "Did you mean 'output_fields'? The keys here are: ..." for the unknown key
    ``loc`` (``providers[0].access[0].endpoints[2].output_feilds``) ends with, the model
    reached from ``root`` along it; ``None`` where the place is no model's."""
    names = [part for part in _PART.split(loc) if part]
    if not names:
        return None
    model: type[BaseModel] | None = root
    for name in names[:-1]:
        field = model.model_fields.get(name) if model is not None else None
        model = _model_of(field.annotation) if field is not None else None
    if model is None:
        return None
    keys = sorted(model.model_fields)
    close = difflib.get_close_matches(names[-1], keys, n=1, cutoff=0.6)
    meant = f"Did you mean {close[0]!r}? " if close else ""
    return f"{meant}The keys here are: {', '.join(keys)}"
