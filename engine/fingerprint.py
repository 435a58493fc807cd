"""Canonical JSON and content hashes.

A fingerprint is the SHA-256 of a value's canonical JSON: keys sorted, no insignificant
whitespace, UTF-8, floats in their shortest round-trip form. The same contract gives the same
fingerprint in any process on any machine.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

__all__ = ["canonical_json", "fingerprint", "fingerprint_json", "short_hash"]

FINGERPRINT_PREFIX = "sha256:"


def canonical_json(value: Any) -> str:
    """Serialize ``value`` deterministically (sorted keys, compact separators, UTF-8)."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def fingerprint(value: Any) -> str:
    """``sha256:<hex>`` of the canonical JSON of ``value``."""
    return fingerprint_json(canonical_json(value))


def fingerprint_json(text: str) -> str:
    """``sha256:<hex>`` of ``text``, a value's :func:`canonical_json` made already (so a
    caller that needs both the text and the fingerprint serializes once)."""
    return FINGERPRINT_PREFIX + hashlib.sha256(text.encode("utf-8")).hexdigest()


def short_hash(text: str | bytes, length: int = 12) -> str:
    """A short hex digest of ``text`` for file names and cache keys."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()[:length]
