"""Which media type of an OpenAPI ``content`` map is read: JSON first, then (request bodies
only) the form types."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["FORM_TYPES", "pick_media"]

FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def pick_media(content: Mapping[str, Any], *, forms: bool) -> str | None:
    """The media type to read: JSON first, then (request bodies only) forms, else the first."""
    types = [t for t in content if isinstance(t, str)]
    if "application/json" in types:
        return "application/json"
    for media in types:
        if media.endswith(("+json", "/json")) or media.startswith("application/json"):
            return media
    if forms:
        for media in FORM_TYPES:
            if media in types:
                return media
    return types[0] if types else None
