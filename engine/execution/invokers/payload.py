"""What every invoker shares: the payload it returns, the error it raises, a sleep op."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, NamedTuple

from schemarouter import errors
from schemarouter.errors import InvocationError

__all__ = [
    "MAX_MESSAGE_CHARS",
    "Payload",
    "Sleep",
    "clip",
    "counts_for_health",
    "invocation_error",
    "is_retryable",
    "outcome_unknown",
    "retry_after",
    "seconds_text",
]

#: Characters of a foreign message (an upstream's error text, a tool's error) kept in errors
#: and logs: a 60,000-character message once stalled a gateway's event loop in its log
#: handler, and a model reads the first lines anyway.
MAX_MESSAGE_CHARS = 300


def seconds_text(seconds: float) -> str:
    """``seconds`` as an error says it: three figures at most ("1.5" for a deadline's
    1.49975, "30", "0.25"), whole seconds from 100 on."""
    return f"{seconds:.3g}" if seconds < 100 else f"{seconds:.0f}"


#: pydantic's line under each error ("For further information visit https://errors.pydantic
#: .dev/..."): a link to pydantic's docs, of no use to an agent or an operator reading why an
#: upstream's answer was refused (trial G).
_PYDANTIC_LINK = re.compile(
    r"\n?[ \t]*For further information visit https://errors\.pydantic\.dev\S*"
)


def clip(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """:func:`schemarouter.errors.clip` at the invokers' limit: ``text`` cut to ``limit``
    characters, saying how long it was (cut before it is logged or put into an error, never
    after), in the one format every error of the project uses; pydantic's links to its docs
    are left out first."""
    return errors.clip(_PYDANTIC_LINK.sub("", text), limit)


class Payload(NamedTuple):
    """A decoded raw output and what it cost."""

    data: Any
    nbytes: int
    status_code: int | None = None
    #: Where it came from, without a query string (credentials may travel there).
    url: str | None = None
    #: The ``Location`` of a ``201 Created`` or ``202 Accepted`` answer, made absolute
    #: against the request's URL: where the new thing (or the job) is.
    location: str | None = None


@dataclass(frozen=True)
class Sleep:
    """Wait ``seconds`` (backoff between attempts)."""

    seconds: float


def invocation_error(
    what: str,
    *,
    where: str,
    hint: str | None = None,
    retryable: bool = False,
    health: bool = True,
    status_code: int | None = None,
    retry_after: float | None = None,
) -> InvocationError:
    """An :class:`InvocationError` flagged for the retry loop and the health monitor.

    ``retryable``: another attempt may succeed (timeouts, transport errors, 5xx, 429);
    ``health``: the failure says something about the route's health (a 404 does not, nor
    a 429: the server limits us); ``retry_after``: the seconds the server asked to wait
    before another call (its ``Retry-After``), kept on the error for the caller.
    An HTTP error answer's JSON (a problem+json document) is on the error as ``body``.
    """
    error = InvocationError(what, where=where, hint=hint)
    error.retryable = retryable
    error.counts_for_health = health
    error.status_code = status_code
    error.retry_after = retry_after
    return error


def is_retryable(error: BaseException) -> bool:
    return bool(getattr(error, "retryable", False))


def counts_for_health(error: BaseException) -> bool:
    return bool(getattr(error, "counts_for_health", True))


def outcome_unknown(raw: BaseException) -> bool:
    """Whether a failed call may still have been performed by the server: it timed out or
    the connection broke after the request went out, or the server answered 500, 502 or
    504 (a 503 or 429 says it did not take the request; a refused connection sent nothing)."""
    if not is_retryable(raw) or getattr(raw, "unsent", False):
        return False
    return getattr(raw, "status_code", None) in (None, 500, 502, 504)


def retry_after(error: BaseException) -> float | None:
    """The seconds the server asked to wait before another call, if it said."""
    value = getattr(error, "retry_after", None)
    return float(value) if isinstance(value, int | float) else None
