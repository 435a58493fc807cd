"""Every error SchemaRouter raises, in one tree.

Each error has a stable ``code`` (safe to match on), and a message that says *what* went
wrong, *where* (document, JSON pointer, route id) and *what to do*.

::

    SchemaRouterError                      SR000
    ├── ArgumentError                      SR001  a public method got an argument of the wrong
    │                                             type or value (also a TypeError/ValueError)
    ├── RegistrationError                  SR100  a document or contract cannot be registered
    │   ├── DocumentError                  SR101  malformed document: parse, shape, unknown key
    │   ├── SchemaError                    SR102  an embedded JSON Schema is invalid
    │   ├── UnitError                      SR103  unknown unit, wrong dimension, wrong factor
    │   ├── DuplicateRouteError            SR104  a route id is registered twice
    │   ├── DanglingReferenceError         SR105  a reference points at nothing
    │   └── ReferenceCycleError            SR106  a $ref chain loops with nothing in between
    ├── RegistryLookupError                SR200  unknown route, provider or semantic id
    ├── IndexStoreError                    SR300  a saved index cannot be used
    │   ├── StaleIndexError                SR301  built from another registry
    │   ├── CorruptIndexError              SR302  truncated, missing or tampered files
    │   └── IndexBackendError              SR303  the index engine is unreachable or failed
    ├── GateError                          SR400  something unregistered tried to leave or enter
    ├── PolicyError                        SR500  an effect, credential or health gate refused
    ├── ExecutionError                     SR600  a call failed
    │   ├── ParameterValidationError       SR601  arguments break the registered input schema
    │   ├── InvocationError                SR602  transport failure, timeout, bad status
    │   ├── OutputValidationError          SR603  raw output breaks the declared output schema
    │   └── BudgetExceededError            SR604  calls, bytes or time budget spent
    ├── ModelError                         SR700  a model artifact is missing or unusable
    └── MissingDependencyError             SR900  an optional extra is not installed
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

__all__ = [
    "ArgumentError",
    "BudgetExceededError",
    "CorruptIndexError",
    "DanglingReferenceError",
    "DocumentError",
    "DuplicateRouteError",
    "ExecutionError",
    "GateError",
    "IndexBackendError",
    "IndexStoreError",
    "InvocationError",
    "MissingDependencyError",
    "ModelError",
    "OutputValidationError",
    "ParameterValidationError",
    "PolicyError",
    "ReferenceCycleError",
    "RegistrationError",
    "RegistryLookupError",
    "SchemaError",
    "SchemaRouterError",
    "StaleIndexError",
    "UnitError",
    "clip",
    "install_hint",
    "require",
]

#: Characters of one value an error keeps where it quotes it (or names a place by it): a
#: document's 5 MB string would otherwise make a 5 MB message, in every log line and gateway
#: answer that carries it.
CLIP = 200
#: Characters ``what`` or ``where`` keeps in all, whatever quoting they use.
_CLIP_ALL = 10 * CLIP
#: a quoted value (``repr`` of a string) or a run with no space (matched from its start
#: only, so that finding one stays linear), longer than :data:`CLIP`
_LONG = re.compile(
    rf"""'[^'\n]{{{CLIP + 1},}}'|"[^"\n]{{{CLIP + 1},}}"|(?<![^\s'"])[^\s'"]{{{CLIP + 1},}}"""
)


def clip(text: str, limit: int = CLIP) -> str:
    """``text`` cut to ``limit`` characters, with how long it was: ``AAA… (5,000,000
    characters)``; unchanged where it is short enough."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"


def _clipped(text: str) -> str:
    """``text`` with each long quoted value, and each long run with no space, clipped
    (:func:`clip`; a quote stays a quote), then the whole cut to about :data:`_CLIP_ALL`
    (its start and its end, which usually says what is wrong with what came before)."""
    if len(text) <= CLIP:
        return text

    def cut(match: re.Match[str]) -> str:
        found = match.group(0)
        if found[0] in "'\"" and found[-1] == found[0]:
            inner = found[1:-1]
            return f"{found[0]}{inner[:CLIP]}…{found[0]} ({len(inner):,} characters)"
        return clip(found)

    text = _LONG.sub(cut, text)
    if len(text) <= _CLIP_ALL:
        return text
    head, tail = text[: _CLIP_ALL - 2 * CLIP], text[-CLIP:]
    return f"{head} … ({len(text):,} characters) … {tail}"


class SchemaRouterError(Exception):
    """Base of every SchemaRouter error.

    ``what`` is the problem, ``where`` the place (a file, a JSON pointer inside it, a route
    id), and ``hint`` what the caller can do about it. ``str(error)`` joins the three. A
    value ``what`` or ``where`` quotes (or a run with no space) past :data:`CLIP` characters
    is cut there, saying how long it was; each of the two keeps about 2,000 characters in all.
    """

    code: ClassVar[str] = "SR000"

    def __init__(self, what: str, *, where: str | None = None, hint: str | None = None) -> None:
        self.what = _clipped(what) if isinstance(what, str) else what
        self.where = _clipped(where) if isinstance(where, str) else where
        self.hint = hint
        super().__init__(self._render())

    def _render(self) -> str:
        text = f"[{self.code}] {self.what}"
        if self.where:
            text += f" (at {self.where})"
        if self.hint:
            text += f". {self.hint}"
        return text

    def summary(self) -> str:
        """The code and the words up to the first ": " ("[SR602] HTTP 400", "[SR602] timed
        out after 5 s"): what a log says at INFO and above. What follows may quote a server's
        answer (an error body echoes arguments and holds output) or a value that broke a
        schema (trial X3), so it is logged at DEBUG only."""
        head = str(self.what).split(": ", 1)[0]
        return f"[{self.code}] {head if len(head) <= 160 else head[:159] + '…'}"

    def located(self, prefix: str) -> SchemaRouterError:
        """Return a copy of this error whose location is prefixed with ``prefix``."""
        return self._copy(where=f"{prefix}{self.where}" if self.where else prefix)

    def placed(self, where: str) -> SchemaRouterError:
        """Return a copy of this error whose location is ``where``."""
        return self._copy(where=where)

    def noting(self, note: str) -> SchemaRouterError:
        """Return a copy of this error with ``note`` added to what it says, in brackets."""
        return self._copy(what=f"{self.what} ({note})")

    def hinting(self, hint: str) -> SchemaRouterError:
        """Return a copy of this error whose hint is ``hint`` (what the caller can do, in the
        caller's terms: a CLI flag where the library's says a keyword)."""
        return self._copy(hint=hint)

    def _copy(self, **changes: Any) -> SchemaRouterError:
        clone = type(self).__new__(type(self))
        clone.__dict__.update(self.__dict__)
        clone.__dict__.update(
            {k: _clipped(v) if isinstance(v, str) else v for k, v in changes.items()}
        )
        Exception.__init__(clone, clone._render())
        return clone


class ArgumentError(SchemaRouterError, TypeError, ValueError):
    """A public method was called with an argument it cannot take (``retrieve(None)``,
    ``k="5"``, an unknown effect name). It is also a ``TypeError`` and a ``ValueError``, so
    code written against Python's conventions keeps catching it."""

    code = "SR001"


class RegistrationError(SchemaRouterError):
    code = "SR100"


class DocumentError(RegistrationError):
    code = "SR101"


class SchemaError(RegistrationError):
    code = "SR102"


class UnitError(RegistrationError):
    code = "SR103"


class DuplicateRouteError(RegistrationError):
    code = "SR104"


class DanglingReferenceError(RegistrationError):
    code = "SR105"


class ReferenceCycleError(RegistrationError):
    code = "SR106"


class RegistryLookupError(SchemaRouterError, KeyError):
    code = "SR200"

    def __str__(self) -> str:  # KeyError would quote the message
        return self._render()


class IndexStoreError(SchemaRouterError):
    code = "SR300"


class StaleIndexError(IndexStoreError):
    code = "SR301"
    #: the encoder a saved index was embedded with, where this installation cannot load it
    #: (``None``: stale for another reason, such as changed routes)
    encoder_identity: str | None = None
    #: the version a saved index's manifest names, where its format or settings are another
    #: version's (only a rebuild here, or that version, reads it; ``sync`` does not)
    other_version: str | None = None


#: What to do about a saved index that cannot be read as written: build it again.
REBUILD_HINT = (
    "Rebuild the index: `schemarouter index build SOURCES --out FOLDER`, or "
    "router.build_index() then router.index.save(FOLDER)"
)


class CorruptIndexError(IndexStoreError):
    """A saved index whose files are not what its manifest says; its hint, where none is
    given, is :data:`REBUILD_HINT` (trial X2: "Rebuild the index" named no command)."""

    code = "SR302"

    def __init__(self, what: str, *, where: str | None = None, hint: str | None = None) -> None:
        super().__init__(what, where=where, hint=hint or REBUILD_HINT)


class IndexBackendError(IndexStoreError):
    """The index engine (a Milvus server, say) could not be reached or failed a request."""

    code = "SR303"


class GateError(SchemaRouterError):
    code = "SR400"


class PolicyError(SchemaRouterError):
    code = "SR500"


class ExecutionError(SchemaRouterError):
    code = "SR600"


class ParameterValidationError(ExecutionError):
    code = "SR601"


class InvocationError(ExecutionError):
    """A call that failed where it ran (its server answered an error, the transport broke,
    the function raised). Its attributes, set by the invoker that raised it, tell the caller
    what to do next."""

    code = "SR602"
    #: Another attempt may succeed (a timeout, a broken transport, a 5xx, a 429).
    retryable: bool = False
    #: The failure says something about the route's health (a 404 or a 429 does not).
    counts_for_health: bool = True
    #: The HTTP status of the error answer, where there was one.
    status_code: int | None = None
    #: The seconds the server asked to wait before another call (its ``Retry-After``).
    retry_after: float | None = None
    #: The error answer's JSON (a problem+json document), credentials scrubbed.
    body: Any = None
    #: What a Python function raised, traceback included (``traceback.print_exception``).
    raised: BaseException | None = None


class OutputValidationError(ExecutionError):
    code = "SR603"


class BudgetExceededError(ExecutionError):
    code = "SR604"


class ModelError(SchemaRouterError):
    code = "SR700"


def install_hint(package: str, *, extra: str | None = None) -> str:
    """How to install an optional dependency: the extra from the checkout this code runs
    from (``pip install -e '/path/to/checkout[serve]'``), else the package itself. Never the
    bare name ``schemarouter`` on the package index: that is an unrelated project."""
    if extra:
        root = Path(__file__).resolve().parent.parent  # a checkout: engine/ beside pyproject
        if (root / "pyproject.toml").is_file() and (root / "engine").is_dir():
            return f"pip install -e '{root}[{extra}]'"
        return f"pip install '{package}' (SchemaRouter's {extra!r} extra)"
    return f"pip install '{package}'"


class MissingDependencyError(SchemaRouterError, ImportError):
    code = "SR900"

    def __init__(self, package: str, *, extra: str | None = None, purpose: str = "") -> None:
        install = install_hint(package, extra=extra)
        what = f"the optional dependency {package!r} is not installed"
        if purpose:
            what += f" (needed for {purpose})"
        super().__init__(what, hint=f"Install it with: {install}")


def require(
    module: str, *, extra: str | None = None, purpose: str = "", package: str | None = None
) -> ModuleType:
    """``module`` imported, or :class:`MissingDependencyError` naming the distribution that
    provides it (``package``; the module's top-level name by default), the ``extra`` that
    installs it and what it is needed for. The one way optional dependencies load."""
    try:
        __import__(module)  # as an import statement does (hooks and all)
    except ImportError:
        name = package or module.partition(".")[0]
        raise MissingDependencyError(name, extra=extra, purpose=purpose) from None
    return sys.modules[module]
