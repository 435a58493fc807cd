"""Where a request goes, where an argument or a credential travels in it, and how its value
is written.

The ground floor's vocabulary for these: :func:`base_url_problem` (what a base URL must be)
and :func:`shown_url` (a URL without its secrets, for messages), :class:`ParameterLocation`,
the OpenAPI serialization styles (:class:`ParameterStyle`, which locations take which, and
each location's default), and :func:`credential_name_key`, the name under which a server
reads a header, query or cookie parameter. :mod:`schemarouter.contracts` re-exports all of
them.
"""

from __future__ import annotations

import re
import shlex
import unicodedata
from collections.abc import Sequence
from enum import StrEnum
from urllib.parse import parse_qsl, unquote, urlsplit, urlunsplit

import httpx

__all__ = [
    "CREDENTIAL_LOCATIONS",
    "HEADER_TEXT",
    "PARAMETER_STYLES",
    "TRANSPORT_LOCATIONS",
    "ParameterLocation",
    "ParameterStyle",
    "base_url_problem",
    "command_secrets",
    "credential_name_key",
    "default_explode",
    "default_style",
    "dot_segment",
    "issued_tokens",
    "operation_path_problem",
    "secret_name",
    "shown_command",
    "shown_url",
]


#: What a header or cookie value may hold, whole (``$`` would pass a trailing newline):
#: printable ASCII and tab; CR LF would start a header of its own. Execution refuses any other
#: before sending, and the gate refuses a proposal's by the same rule.
HEADER_TEXT = re.compile(r"[\x20-\x7e\t]*")


class ParameterLocation(StrEnum):
    PATH = "path"
    QUERY = "query"
    HEADER = "header"
    COOKIE = "cookie"
    BODY = "body"
    ARGUMENT = "argument"  # MCP tool arguments and Python keyword arguments


class ParameterStyle(StrEnum):
    """How an array or object argument is written: OpenAPI 3's ``style`` values, and
    ``tabDelimited`` for Swagger 2's ``collectionFormat: tsv``."""

    FORM = "form"
    SIMPLE = "simple"
    LABEL = "label"
    MATRIX = "matrix"
    SPACE_DELIMITED = "spaceDelimited"
    PIPE_DELIMITED = "pipeDelimited"
    TAB_DELIMITED = "tabDelimited"
    DEEP_OBJECT = "deepObject"


_DELIMITED = (
    ParameterStyle.SPACE_DELIMITED,
    ParameterStyle.PIPE_DELIMITED,
    ParameterStyle.TAB_DELIMITED,
)
_QUERY_STYLES = frozenset({ParameterStyle.FORM, ParameterStyle.DEEP_OBJECT, *_DELIMITED})
#: The styles each location takes (Swagger 2 delimits path, header and form values too; an
#: ``argument`` of an HTTP route travels in the query).
PARAMETER_STYLES: dict[ParameterLocation, frozenset[ParameterStyle]] = {
    ParameterLocation.PATH: frozenset(
        {ParameterStyle.SIMPLE, ParameterStyle.LABEL, ParameterStyle.MATRIX, *_DELIMITED}
    ),
    ParameterLocation.QUERY: _QUERY_STYLES,
    ParameterLocation.ARGUMENT: _QUERY_STYLES,
    ParameterLocation.HEADER: frozenset({ParameterStyle.SIMPLE, *_DELIMITED}),
    ParameterLocation.COOKIE: frozenset({ParameterStyle.FORM}),
    ParameterLocation.BODY: frozenset({ParameterStyle.FORM, *_DELIMITED}),
}


def default_style(location: ParameterLocation) -> ParameterStyle:
    """OpenAPI 3's default: ``simple`` in a path or header, ``form`` elsewhere."""
    if location in (ParameterLocation.PATH, ParameterLocation.HEADER):
        return ParameterStyle.SIMPLE
    return ParameterStyle.FORM


def default_explode(style: ParameterStyle) -> bool:
    """OpenAPI 3's default ``explode``: true for ``form``, false for every other style."""
    return style is ParameterStyle.FORM


#: Parameter locations that carry transport (auth, tracing, sessions: ``X-Amz-Date``,
#: ``X-Request-Id``, cookies), not what the request is about.
TRANSPORT_LOCATIONS = frozenset({ParameterLocation.HEADER, ParameterLocation.COOKIE})
#: Where a parameter travels beside a credential, so that a server may read it as one.
CREDENTIAL_LOCATIONS = frozenset(
    {ParameterLocation.HEADER, ParameterLocation.QUERY, ParameterLocation.COOKIE}
)


def _decoded(text: str) -> str:
    """``text`` percent-decoded as a server that decodes again may read it: up to three
    times (``%255F`` -> ``%5F`` -> ``_``)."""
    for _ in range(3):
        decoded = unquote(text)
        if decoded == text:
            break
        text = decoded
    return text


def credential_name_key(name: str) -> str:
    """``name`` as a server may read it: percent-decoded, case-folded, with ``-``, ``.`` and
    spaces as ``_`` and no trailing ``[]``. CGI and WSGI map the headers ``X-API-KEY`` and
    ``x_api_key`` to one variable (``HTTP_X_API_KEY``); case-insensitive query parsers read
    ``API_KEY`` as ``api_key``; PHP reads ``api_key[]`` and ``api.key`` as ``api_key``."""
    text = re.sub(r"[-. ]", "_", _decoded(str(name)).strip().casefold())
    while text.endswith("[]"):
        text = text[:-2]
    return text


def shown_url(url: str) -> str:
    """``url`` without its userinfo, query and fragment, for messages and provenance: where
    an HTTP server's credential travels when it has nowhere else to go."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc.rsplit("@", 1)[-1], parts.path, "", ""))


#: A name whose value is a secret: ``OPENAI_API_KEY``, ``DB_PASSWORD``, ``AUTH_TOKEN``,
#: ``DB_PASS``, ``PASSPHRASE``, ``API_PIN``, ``SIGNING_SALT`` ... (trial Z1: a secret under
#: ``*_PASS``, ``*PASSPHRASE``, ``*_PIN``, ``*_SALT`` or ``*_OTP*`` reached tool outputs).
_SECRET_NAME = re.compile(
    r"key|token|secret|pass|pwd|auth|credential|private|cookie|session|signature|"
    r"bearer|dsn|cert|salt|hmac|mnemonic|(?:^|_)(?:pin|otp|sig|seed)(?:_|$)",
    re.IGNORECASE,
)


def secret_name(name: str) -> bool:
    """Whether ``name``, an environment variable's or a command-line flag's, holds a secret
    (:data:`_SECRET_NAME`; a flag's dashes and dots read as ``_``: ``--signing-salt`` as
    ``signing_salt``). One rule for a stdio server's ``env`` (what its tools' output loses)
    and its command line (what its label hides): they disagreed, and ``--dsn VALUE`` or
    ``--signing-salt VALUE`` were written into a saved index (trial V1)."""
    return bool(_SECRET_NAME.search(re.sub(r"[-.]", "_", name.lstrip("-"))))


def url_secrets(url: str) -> list[str]:
    """What of ``url`` may be a secret, for a redactor: its userinfo, its query and each
    query value (what :func:`shown_url` leaves out)."""
    parts = urlsplit(url)
    found = [parts.username or "", parts.password or "", parts.query]
    found += [value for _, value in parse_qsl(parts.query)]
    return [text for text in found if text]


def shown_command(server: Sequence[str] | str) -> str:
    """An MCP server as every message, log line and route names it: a URL without its
    userinfo and query (:func:`shown_url`), a command line with its secret flags' values
    ``[redacted]`` (``--api-key VALUE``, ``--token=VALUE``, ``GITHUB_TOKEN=VALUE``, a URL's
    password): the label is the routes' ``server``, written into a saved index's registry
    and a catalog export (trial W1), and the connection's name in the log (trial V1: the
    log and the gateway's config errors showed the command as written)."""
    if isinstance(server, str) and re.match(r"^https?://", server, re.IGNORECASE):
        return _server_url(server)[0]
    words = _words(server)
    if words is None:  # an unclosed quote: shown as written, as it never starts
        return server if isinstance(server, str) else ""
    found = [_shown_word(word, words[i - 1] if i else "") for i, word in enumerate(words)]
    # a value hidden in one argument is hidden where another quotes it too ("sh -c '...'"),
    # and a script's own secret flags are read as the command line's ("sh -c 'srv --token V'")
    inner = [x for word in words for x in _script_secrets(word)]
    hidden = sorted(
        {x for _, xs in found for x in xs if len(x) >= 4} | {x for x in inner if len(x) >= 4},
        key=len,
        reverse=True,
    )
    shown = [_hidden_in(word, hidden) for word, _ in found]
    return shlex.join(shown) if shown != words or not isinstance(server, str) else server


def _hidden_in(word: str, values: Sequence[str]) -> str:
    """``word`` with each of ``values`` inside it ``[redacted]``."""
    for value in values:
        if value in word and word != "[redacted]":
            word = word.replace(value, "[redacted]")
    return word


def command_secrets(server: Sequence[str] | str) -> list[str]:
    """What :func:`shown_command` hides of ``server``: its secret flags' values, its URLs'
    userinfo and query, for a redactor of what the server and connecting to it say (an
    error may quote the server's own arguments)."""
    if isinstance(server, str) and re.match(r"^https?://", server, re.IGNORECASE):
        return _server_url(server)[1]
    words = _words(server) or []
    found = [x for i, w in enumerate(words) for x in _shown_word(w, words[i - 1] if i else "")[1]]
    inner = [x for word in words for x in _script_secrets(word)]
    return [*found, *dict.fromkeys(x for x in inner if not any(x in f for f in found))]


def _script_secrets(word: str) -> list[str]:
    """The secrets of a script a command line passes as one argument (``sh -c 'srv --token
    VALUE'``, ``bash -lc "..."``): its words read as a command line's (trial Z2: the token
    after a secret flag inside the script was shown as written)."""
    if not re.search(r"\s", word):
        return []
    inner = _words(word) or word.split()
    if len(inner) < 2:
        return []
    return [x for i, w in enumerate(inner) for x in _shown_word(w, inner[i - 1] if i else "")[1]]


def _words(server: Sequence[str] | str) -> list[str] | None:
    try:
        return shlex.split(server) if isinstance(server, str) else [str(w) for w in server]
    except ValueError:
        return None


#: A URL path segment that is a key (16 or more characters, letters and digits, no space):
#: ``https://actions.zapier.com/mcp/sk-ak-.../sse``, ``/bot123456:ABC-DEF.../``.
_KEY_SEGMENT = re.compile(r"(?=[^/\s]*[A-Za-z])(?=[^/\s]*\d)[^/\s?#]{16,}")


def _server_url(url: str) -> tuple[str, list[str]]:
    """An MCP server's URL as :func:`shown_command` shows it (:func:`shown_url`, and each
    path segment that is a key ``[redacted]``: hosted MCP servers put their key in the path;
    trial X1), and what it hides."""
    hidden = url_secrets(url)
    parts = urlsplit(url)
    segments = parts.path.split("/")
    keys = [segment for segment in segments if _KEY_SEGMENT.fullmatch(segment)]
    if not keys:
        return shown_url(url), hidden
    path = "/".join("[redacted]" if s in keys else s for s in segments)
    return shown_url(urlunsplit(parts._replace(path=path))), [*hidden, *keys]


#: A command line's flag or variable (a short flag such as ``-p`` is not read).
_FLAG = re.compile(r"^-{0,2}[A-Za-z0-9_.-]+$")
#: A URL's password: ``postgres://app:PASSWORD@db``.
_PASSWORD = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]*:)([^/\s@]+)@")
#: A URL of any scheme (``wss://``, ``postgres://``), whose query a setting may be a secret in.
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
#: A query's setting: ``?sslmode=require&password=VALUE``.
_QUERY_SETTING = re.compile(r"([?&;])([^=&;#]+)=([^&;#]*)")
#: A word that is a header: ``Authorization: Bearer VALUE``, ``X-API-Key: VALUE``.
_HEADER = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_.-]*)\s*:\s*(\S.*?)\s*$", re.DOTALL)
#: A setting inside a word: a JSON member (``{"apiKey": "VALUE"}``) or a connection
#: string's (``Server=db;User Id=sa;Password=VALUE;``).
_SETTING = re.compile(
    r"""(?:^|(?<=[\s{,;&?(]))(["']?)([A-Za-z][\w.-]*(?:\x20[A-Za-z][\w.-]*)?)\1\s*[:=]\s*"""
    r"""(?:"([^"]*)"|'([^']*)'|([^\s;,&}"']+))"""
)


#: A token of a known issuer's shape, whatever stands before it (a bare positional argument,
#: ``-k VALUE``, ``--access VALUE``: trials X1, Y1, shown as written): OpenAI's and
#: Anthropic's ``sk-``, Stripe's ``sk_live_``, GitHub's ``ghp_`` and ``github_pat_``, Slack's
#: ``xoxb-``, GitLab's ``glpat-``, AWS's ``AKIA``, Google's ``AIza``, Hugging Face's ``hf_``,
#: npm's and PyPI's, and a JWT.
_ISSUED_TOKEN = re.compile(
    r"sk-[A-Za-z0-9_-]{16,}|[sr]k_(?:live|test)_[A-Za-z0-9]{10,}|gh[pousr]_[A-Za-z0-9]{30,}"
    r"|github_pat_\w{20,}|xox[abposr]-[A-Za-z0-9-]{10,}|glpat-[\w-]{20,}|(?:AKIA|ASIA)[0-9A-Z]{16}"
    r"|AIza[\w-]{35}|hf_[A-Za-z0-9]{30,}|npm_[A-Za-z0-9]{36}|pypi-[\w-]{50,}"
    r"|eyJ[\w-]{10,}\.[\w-]{10,}\.[\w-]{10,}"
)

_ISSUED_INSIDE = re.compile(rf"(?<![\w-])(?:{_ISSUED_TOKEN.pattern})(?![\w-])")


def issued_tokens(text: str) -> list[str]:
    """The tokens of a known issuer's shape (``ghp_...``, ``sk-...``) written in ``text``."""
    return [m.group(0) for m in _ISSUED_INSIDE.finditer(text)]


def _shown_word(word: str, before: str) -> tuple[str, list[str]]:
    """``word`` of a command line (after ``before``) as :func:`shown_command` shows it, and
    the secrets it hides: a secret flag's value, a URL's userinfo, query or password, and a
    secret header, JSON member or connection-string setting written in one word (trial X1:
    ``--header "Authorization: Bearer VALUE"``, ``--config '{"apiKey": "VALUE"}'`` and
    ``Password=VALUE;`` were shown as written)."""
    if _ISSUED_TOKEN.fullmatch(word):
        return "[redacted]", [word]
    name, equals, value = word.partition("=")
    if equals and value and _FLAG.match(name) and secret_name(name):
        return f"{name}=[redacted]", [value]
    if before.startswith("-") and _FLAG.match(before) and secret_name(before):
        return "[redacted]", [word]
    if re.match(r"^https?://", word, re.IGNORECASE):
        return _server_url(word)
    if equals and value and _FLAG.match(name) and name.startswith("-"):
        shown, hidden = _shown_word(value, "")  # --header=Authorization: Bearer VALUE
        return (f"{name}={shown}", hidden) if hidden else (word, [])
    if _URL.match(word):
        return _shown_url_word(word)
    shown, hidden = _shown_settings(word)
    inside = [m.group(0) for m in _ISSUED_INSIDE.finditer(shown)]  # "sh -c 'srv ghp_...'"
    return _hidden_in(shown, inside), [*hidden, *inside]


def _shown_url_word(word: str) -> tuple[str, list[str]]:
    """A URL other than http(s) with its password and its query's secret settings hidden."""
    hidden: list[str] = []
    if found := _PASSWORD.match(word):
        word, hidden = _PASSWORD.sub(r"\1[redacted]@", word), [found.group(2)]

    def setting(m: re.Match[str]) -> str:
        if not m.group(3) or not secret_name(unquote(m.group(2))):
            return m.group(0)
        hidden.append(m.group(3))
        return f"{m.group(1)}{m.group(2)}=[redacted]"

    query = word.find("?")
    if query >= 0:
        word = word[:query] + _QUERY_SETTING.sub(setting, word[query:])
    return word, hidden


def _shown_settings(word: str) -> tuple[str, list[str]]:
    """``word`` with a secret header's value (the whole word a header), or each secret JSON
    member's or connection-string setting's value, ``[redacted]``."""
    header = _HEADER.match(word)
    if header and not word.lstrip().startswith(("{", "[")) and secret_name(header.group(1)):
        value = header.group(2)
        return f"{header.group(1)}: [redacted]", list(dict.fromkeys([value, value.split()[-1]]))
    hidden: list[str] = []

    def setting(m: re.Match[str]) -> str:
        value = next((g for g in m.groups()[2:] if g is not None), "")
        if not value or not secret_name(m.group(2).replace(" ", "_")):
            return m.group(0)
        hidden.append(value)
        start, end = m.span(m.lastindex or 0)
        return m.group(0)[: start - m.start()] + "[redacted]" + m.group(0)[end - m.start() :]

    shown = _SETTING.sub(setting, word)
    return (shown, hidden) if hidden else (word, [])


def dot_segment(segment: str) -> str | None:
    """The ``.`` or ``..`` that ``segment`` of a URL path is to some server, or ``None``:
    written plainly, percent-encoded up to three times (``%252e%252e``), or as a piece of it
    between encoded slashes or backslashes, before a ``;`` parameter or a NUL (``..%2f``,
    ``..;``, ``\\..\\``, ``..%00``: trial X4; servers and proxies that decode ``%2F``, split
    at ``\\`` or drop path parameters climb out), and in the full-width or look-alike forms a
    server that folds Unicode (NFKC) reads so (``R1／．．／admin``, ``‥``, ``∕``: trial Z1)."""
    text = unicodedata.normalize("NFKC", _decoded(segment))
    for piece in re.split(r"[/\\∕⁄⧸]", text):
        piece = piece.split(";", 1)[0].split("\0", 1)[0]
        if piece in (".", ".."):
            return piece
    return None


def operation_path_problem(path: str) -> str | None:
    """Why ``path`` cannot be an HTTP operation's path, or ``None``: it starts with ``/`` and
    has no ``.`` or ``..`` segment, written plainly or percent-encoded (``/../admin``,
    ``/%2e%2e/admin``): joined after the base URL it would climb out of it, and every call
    would be refused. (A ``#name`` after the path is allowed: documents such as AWS's tell
    operations on one path apart with it, and it never leaves the client.)"""
    if not path.startswith("/"):
        return f"path {path!r} must start with '/'"
    for segment in path.split("#", 1)[0].split("?", 1)[0].split("/"):
        dots = dot_segment(segment)
        if dots == "..":
            return (
                f"path {path[:200]!r} has a {segment!r} segment, which would climb out of the "
                "base URL"
            )
        if dots == ".":
            return (
                f"path {path[:200]!r} has a {segment!r} segment, which URLs drop: the call "
                "would go to another path than the one declared"
            )
    return None


def base_url_problem(value: str) -> str | None:
    """Why ``value`` cannot be a base URL, or ``None``: an operation's path is joined after
    it, so it is an absolute http(s) URL with no query, fragment, credentials or spaces (a
    query would swallow the path, a fragment drop it, and either call would still answer), and
    no ``.`` or ``..`` path segment, plain or encoded (:func:`dot_segment`; trial X3:
    ``/v1/../admin`` was taken, and the calls went to ``/admin``)."""
    if not re.match(r"^https?://[^/\s?#]+", value):
        return f"base_url {value!r} must be an absolute http(s) URL"
    if re.search(r"\s", value):
        return f"base_url {value!r} has white space in it"
    if "?" in value or "#" in value:
        return (
            f"base_url {value!r} has a query or fragment, which the operation's path would "
            "land behind; give the URL up to its path (a fixed query value belongs in the "
            "operation's parameters)"
        )
    scheme, _, rest = value.partition("://")
    for segment in rest.split("/")[1:]:
        if dot_segment(segment):
            return (
                f"base_url {value[:200]!r} has a {segment!r} segment: a call would go to "
                "another path than the one written (HTTP clients drop or resolve it, servers "
                "may not)"
            )
    if "@" in rest.split("/", 1)[0]:
        shown = f"{scheme}://***@{rest.split('@', 1)[1]}"
        return f"base_url {shown!r} has credentials in it; pass them as credentials instead"
    try:
        httpx.URL(value).host  # noqa: B018 - reading the host decodes (checks) its IDNA form
    except (httpx.InvalidURL, ValueError) as exc:
        return f"base_url {value[:200]!r} is not a valid URL ({str(exc)[:120]})"
    return None
