"""Credentials by *name*, looked up at call time from a trusted source.

Contracts, candidates and plans carry only credential names (``MP_API_KEY``); the executor
asks a :class:`CredentialProvider` for the value just before a request is built and places
it where the route's :class:`~schemarouter.contracts.AuthRequirement` says. Values never
enter a plan, a result, a log record or an error message: every text the executor builds
from foreign input passes through a :class:`Redactor` that knows the values it handed out.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import re
import traceback
import weakref
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol, runtime_checkable
from urllib.parse import quote, quote_plus

from schemarouter.placement import issued_tokens, secret_name
from schemarouter.safety.forksafe import ForkSafeLock

__all__ = [
    "REDACTED",
    "RESERVED_PREFIX",
    "SHORT_VALUE",
    "CredentialProvider",
    "EnvironmentCredentials",
    "MappingCredentials",
    "Pieces",
    "Redactor",
    "env_secrets",
    "escaped_forms",
    "guard_logger",
    "output_secrets",
    "redacted_exception",
    "scrub_output",
    "text_secrets",
]

#: What replaces a credential value wherever one would otherwise show.
REDACTED = "[redacted]"


@runtime_checkable
class CredentialProvider(Protocol):
    """A trusted source of credential values, asked by name at call time."""

    def get(self, name: str) -> str | None:
        """The value of credential ``name``, or ``None`` where it is not available."""
        ...


#: Environment variables that are SchemaRouter's own settings (``SCHEMAROUTER_SERVE_TOKEN``,
#: the gateway's bearer token): never a route's credential, whatever a document names.
RESERVED_PREFIX = "SCHEMAROUTER_"


class EnvironmentCredentials:
    """Credentials from environment variables (the default): ``MP_API_KEY`` -> ``$MP_API_KEY``.

    ``prefix`` is prepended to every name (``prefix="APP_"`` reads ``$APP_MP_API_KEY``). A
    name under :data:`RESERVED_PREFIX` is never read: credential names come from a
    document's title and scheme names, and a document titled "SchemaRouter" with a scheme
    ``serve`` must not receive the gateway's own token. Give each untrusted document a
    ``provider=`` of your choosing, or a ``prefix``, so that its names cannot reach other
    variables either (``GITHUB_TOKEN`` for a document titled "GitHub").
    """

    def __init__(self, *, prefix: str = "") -> None:
        self.prefix = prefix

    def get(self, name: str) -> str | None:
        variable = self.prefix + name
        if variable.upper().startswith(RESERVED_PREFIX):
            return None
        value = os.environ.get(variable)
        return value or None

    def __repr__(self) -> str:
        return f"EnvironmentCredentials(prefix={self.prefix!r})"


class MappingCredentials:
    """Credentials from a mapping the host fills (a secrets manager, a test). Its repr
    shows names only."""

    def __init__(self, values: Mapping[str, str]) -> None:
        self.__values = dict(values)

    def get(self, name: str) -> str | None:
        return self.__values.get(name) or None

    def names(self) -> frozenset[str]:
        return frozenset(self.__values)

    def __repr__(self) -> str:
        return f"MappingCredentials(names={sorted(self.__values)!r})"


def escaped_forms(value: str) -> set[str]:
    """``value`` as it may appear in text a server or a library writes: URL-encoded (with
    either hex case, ``/`` kept or not, ``+`` for spaces), JSON-escaped (``\\/``,
    ``\\u00e9``), as Python's ``repr`` or ``unicode_escape`` writes it, in base64
    (:func:`base64_cores`, and whole) and in hex (either case)."""
    forms = {value, quote(value, safe=""), quote(value), quote_plus(value)}
    for form in list(forms):
        forms.add(re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), form))
    for ascii_only in (True, False):
        text = json.dumps(value, ensure_ascii=ascii_only)[1:-1]
        forms.update({text, text.replace("/", "\\/")})
    forms.add(repr(value)[1:-1])
    forms.add(value.encode("unicode_escape").decode("ascii"))
    forms.update(base64_cores(value))
    raw = value.encode("utf-8")
    if len(raw) >= 6:  # a server that logged it in hex or whole in base64 (trial Z1)
        whole = base64.b64encode(raw).decode("ascii")
        forms.update({raw.hex(), raw.hex().upper(), whole, whole.rstrip("=")})
    return {form for form in forms if form}


def base64_cores(value: str) -> set[str]:
    """The base64 characters ``value`` alone decides, at each of the three places it may
    start in an encoded text: a server that logged ``Authorization: Basic
    base64(user:key)`` or a key in base64 wrote it in no form redaction knew (trial X1).
    None for a value under 12 bytes (its cores would be too short to be its own)."""
    raw = value.encode("utf-8")
    if len(raw) < 12:
        return set()
    cores = set()
    for lead in range(3):
        text = base64.b64encode(b"\0" * lead + raw).decode("ascii")
        cores.add(text[-(-8 * lead // 6) : 8 * (lead + len(raw)) // 6])
    return cores


#: A credential value shorter than this is replaced only where it stands alone (no letter or
#: digit beside it), never inside a word or an output key: a basic-auth user ``name`` must not
#: turn every ``name`` field into ``[redacted]``, nor a one-letter one ``path`` into
#: ``p[redacted]th``. Longer values are replaced wherever they appear.
SHORT_VALUE = 8


#: A number a secret may be (a PIN, a one-time code), under a secret's name.
_PIN = re.compile(r"\d{4,}")
#: A value of a server's environment that is a setting, not a secret: a number, a yes/no.
_SETTING = re.compile(
    r"[0-9.]{0,6}|true|false|yes|no|on|off|debug|info|warn|warning|error|critical", re.IGNORECASE
)


def env_secrets(env: Mapping[str, str] | None) -> list[str]:
    """The values of a stdio MCP server's own ``env`` that may be secrets (where the docs put
    its API key), for redaction from what it writes and answers: all but a short number (a
    port, a count: six characters at most), a yes/no setting or a log level (``port 5432``
    and ``INFO`` still read; a numeric password of more digits is redacted: trial V1). A
    server that printed its API key at start had it in the gateway's log once per start; one
    that echoed it in an error gave it to the agent (trial U2). A number of four or more
    digits under a secret's name is a secret all the same (``API_PIN=4821``,
    ``SERVICE_TOKEN=938271``: trial X1, shown in errors, logs and outputs)."""
    return [
        v
        for k, v in (env or {}).items()
        if isinstance(v, str)
        and (not _SETTING.fullmatch(v) or (_PIN.fullmatch(v) and secret_name(str(k))))
    ]


#: A URL that carries its own user and password (``postgres://app:hunter2@db``), or a
#: connection string that does (``Server=db;User=app;Password=s3cr3t``).
_URL_PASSWORD = re.compile(r"://[^/\s:@]*:[^/\s@]+@|\b(?:password|passwd|pwd)\s*=", re.IGNORECASE)


def output_secrets(env: Mapping[str, str] | None) -> list[str]:
    """The values of :func:`env_secrets` a tool's *output* loses too: those under a secret's
    name (``*_KEY``, ``*TOKEN*``, ``*PASSWORD*``: :func:`~schemarouter.placement.secret_name`),
    a URL with a password, or a value that looks like a key (16 or more characters, letters
    and digits, no space or slash). An
    output is data: ``DATA_DIR=/srv/data`` or ``REGION=eu-west-1`` stay in the paths and
    names it returns (trial X1: every env value became ``[redacted]`` wherever it appeared),
    while the server's log and errors still lose every value of :func:`env_secrets`."""
    kept = set(env_secrets(env))
    out = []
    for name, value in (env or {}).items():
        if value not in kept:
            continue
        keyish = len(value) >= 16 and not re.search(r"[\s/\\]", value)
        keyish = keyish and bool(re.search(r"[A-Za-z]", value) and re.search(r"\d", value))
        if secret_name(str(name)) or _URL_PASSWORD.search(value) or keyish:
            out.append(value)
    return out


#: A secret :class:`Pieces` redacts the parts of in a tool's output: a token of 20 or more
#: key characters (a URL, a path or a connection string has parts that are no secret).
_TOKEN = re.compile(r"[\w\-.~+]{20,}=*")


def scrub_output(data: Any, env: Mapping[str, str] | None, argv: Iterable[str] = ()) -> Any:
    """A stdio upstream's tool output ``data`` without its :func:`output_secrets` and the
    secret flags' values of its command line ``argv`` (``--api-key VALUE``, each a secret by
    its name), whole or (a key-like one) in parts of :data:`PIECE` characters or more: a key
    a tool returned wrapped on two lines or in two fields went out in halves (trial Z1)."""
    secrets = output_secrets(env) + [v for v in argv if v]
    if not secrets:
        return data
    data = Redactor(secrets).scrub(data)
    tokens = [value for value in secrets if _TOKEN.fullmatch(value)]
    return Pieces(tokens).scrub(data) if tokens else data


def _each_string(data: Any, text: Callable[[str], str], key: Callable[[str], str]) -> Any:
    """``data`` (JSON values) with ``text`` applied to every string value and ``key`` to every
    object key."""
    if isinstance(data, str):
        return text(data)
    if isinstance(data, list):
        return [_each_string(item, text, key) for item in data]
    if isinstance(data, dict):
        return {key(k): _each_string(v, text, key) for k, v in data.items()}
    return data


class Redactor:
    """Replaces every credential value it has seen with :data:`REDACTED` in a text (a
    value under :data:`SHORT_VALUE` characters only where it stands alone)."""

    def __init__(self, values: Iterable[str] = ()) -> None:
        self.__values: set[str] = set()
        self.__short: set[str] = set()
        self.__alone: re.Pattern[str] | None = None
        for value in values:
            self.add(value)

    def add(self, value: str) -> None:
        """Remember ``value`` and the forms it takes when escaped (:func:`escaped_forms`)."""
        if value:
            for form in escaped_forms(value):
                (self.__short if len(form) < SHORT_VALUE else self.__values).add(form)
            self.__alone = None
            with _GUARD_LOCK:
                _ACTIVE.add(self)

    def __call__(self, text: str) -> str:
        text = self._anywhere(text)
        if self.__short:
            if self.__alone is None:
                forms = "|".join(re.escape(f) for f in sorted(self.__short, key=len, reverse=True))
                self.__alone = re.compile(rf"(?<![A-Za-z0-9])(?:{forms})(?![A-Za-z0-9])")
            text = self.__alone.sub(REDACTED, text)
        return text

    def _anywhere(self, text: str) -> str:
        # longest first, so a value that contains another is replaced whole
        for value in sorted(self.__values, key=len, reverse=True):
            if value in text:
                text = text.replace(value, REDACTED)
        return text

    def scrub(self, data: Any) -> Any:
        """``data`` (JSON values) with every string redacted (keys: long values only)."""
        if not (self.__values or self.__short):
            return data
        return _each_string(data, self, self._anywhere)

    def __repr__(self) -> str:
        return f"Redactor({len(self.__values) + len(self.__short)} values)"


#: The least part of a secret :class:`Pieces` redacts on its own: a log handler that wraps
#: long lines (the MCP SDK's rich one, at 80 columns) writes a long key in pieces, none whole.
PIECE = 10


class Pieces:
    """Replaces with :data:`REDACTED` every run of :data:`PIECE` or more characters that is a
    part of one of ``values`` (as written or escaped, :func:`escaped_forms`) of twice that or
    more: an 88-character key in a tool's error came out of an upstream's log handler on three
    lines of 37, each relayed into the gateway's log with no whole key to redact (trial V1)."""

    def __init__(self, values: Iterable[str] = ()) -> None:
        forms = {form for value in values for form in escaped_forms(value)}
        self._grams = {
            form[i : i + PIECE]
            for form in forms
            if len(form) >= 2 * PIECE
            for i in range(len(form) - PIECE + 1)
        }

    def __call__(self, text: str) -> str:
        if not self._grams:
            return text
        spans: list[list[int]] = []
        for i in range(len(text) - PIECE + 1):
            if text[i : i + PIECE] in self._grams:
                if spans and spans[-1][1] >= i:
                    spans[-1][1] = i + PIECE
                else:
                    spans.append([i, i + PIECE])
        kept, at = [], 0
        for start, end in spans:
            kept.append(text[at:start])
            at = end
        return REDACTED.join([*kept, text[at:]])

    def scrub(self, data: Any) -> Any:
        """``data`` (JSON values) with every string's pieces redacted, keys included."""
        return _each_string(data, self, self)


#: Redactors of executions in flight; the logging filter below consults them.
_ACTIVE: weakref.WeakSet[Redactor] = weakref.WeakSet()
_GUARD_LOCK = ForkSafeLock(reentrant=True)


class _RedactingFilter(logging.Filter):
    """Redacts credential values from records of a logger the executor does not own.

    httpx logs every request URL at INFO; a key that travels in the query string would show
    there. The filter rewrites such a record's message; it adds no handler, changes no level.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        with _GUARD_LOCK:
            redactors = list(_ACTIVE)
        if redactors:
            text = record.getMessage()
            clean = text
            for redactor in redactors:
                clean = redactor(clean)
            if clean != text:
                record.msg, record.args = clean, ()
        return True


_FILTER = _RedactingFilter()


#: Loggers a library logs to by their own names (a filter on a parent does not see a child's
#: records): httpcore logs response headers at DEBUG, an echoed key among them.
_CHILDREN = {
    "httpcore": ("httpcore.connection", "httpcore.http11", "httpcore.http2", "httpcore.proxy"),
}


def guard_logger(name: str) -> None:
    """Attach the redacting filter to logger ``name`` and the child loggers a library logs
    to by name (once each)."""
    with _GUARD_LOCK:
        for each in (name, *_CHILDREN.get(name, ())):
            logger = logging.getLogger(each)
            if _FILTER not in logger.filters:
                logger.addFilter(_FILTER)


#: A secret written as one in free text: a bearer (or basic) token, a URL's password, a
#: setting under a secret's name (``api_key=VALUE`` in a URL's query, ``password: VALUE``).
_WRITTEN_SECRETS = (
    # a token has a digit or a capital inside ("Basic authentication failed" names none)
    re.compile(r"\b(?i:Bearer|Basic)\s+((?=[\w\-.~+/]*(?:\d|[a-z][A-Z]))[\w\-.~+/]{8,}=*)"),
    re.compile(r"://[^/\s:@]*:([^/\s@]+)@"),
)
_NAMED_SETTING = re.compile(  # each name, the value after it may be another's name
    r"(?<![\w.-])(?=([A-Za-z][\w.-]*)[\"']?\s*[:=]\s*[\"']?([^\s&;,\"'<>()\[\]{}=:]{4,}=*))"
)


def text_secrets(text: str) -> list[str]:
    """The values ``text`` writes as secrets (:data:`_WRITTEN_SECRETS`, and a setting whose
    name ends as a secret's does, :data:`_SECRET_END`): what a Python function's
    own exception may quote of the key it holds, which the run never handed out (trial Y1:
    ``GET https://...?api_key=VALUE failed`` reached the agent and the log)."""
    found = [m.group(1) for pattern in _WRITTEN_SECRETS for m in pattern.finditer(text)]
    found += [m.group(2) for m in _NAMED_SETTING.finditer(text) if _SECRET_END.search(m.group(1))]
    found += issued_tokens(text)  # "GitHub refused ghp_...": a known issuer's shape
    return list(dict.fromkeys(found))


#: The name of a setting a message writes a secret under, read strictly (a message's
#: "KeyboardInterrupt: driver gave up" names none, where ``secret_name`` reads "key" in it).
_SECRET_END = re.compile(
    r"(?:^|[^a-z])(?:key|sig|auth|pwd|pass)$|(?:api|access|secret|private|client)[_-]?key$"
    r"|token$|passw(?:or)?d$|secret$|signature$|credentials?$",
    re.IGNORECASE,
)


def redacted_exception(raised: BaseException, redactor: Redactor) -> BaseException:
    """``raised`` (what a Python function raised, kept on its error as ``raised``) where its
    text, the exceptions chained to it included, holds no value ``redactor`` knows; else a
    stand-in of its type with its message redacted, on its traceback (the function's frames
    still show) and without the chain, which may quote the value too (trial V3: the error
    said ``[redacted]`` where ``error.raised`` held the API key a step before was given)."""
    text = "".join(traceback.format_exception(raised))
    if redactor(text) == text:
        return raised
    message = redactor(str(raised))
    try:  # its own class where it renders from ``args`` (not from attributes left behind)
        stand_in = type(raised).__new__(type(raised))
        stand_in.args = (message,)
        if str(stand_in) != message:
            raise TypeError(message)
    except Exception:
        stand_in = Exception(message)
    return stand_in.with_traceback(raised.__traceback__)
