"""The gateway's configuration: what to register, what may have effects, how to search.

A YAML or JSON file (paths in it are relative to the file)::

    name: lab-gateway
    catalogs: [catalogs/materials]
    openapi:
      - {source: specs/weather.yaml, provider: weather}
      - {source: "https://api.example.org/openapi.json", provider: example,
         base_url: "https://api.example.org"}
      - {source: specs/regional.yaml, server_variables: {region: eu}}   # its servers' {region}
    mcp_tools:                        # recorded tools/list results (retrieval only)
      - {source: tools/github.json, provider: github}
    optimade:                         # OPTIMADE services (base URL, or recorded payloads)
      - {source: "https://optimade.example.org/v1", provider: groupdb}
    mcp_servers:                      # upstream servers, kept open, proxied through the gate
      - {provider: notes, command: [python, notes_server.py], timeout: 10}
      - {provider: search, url: "http://127.0.0.1:9000/mcp"}
    allow:                            # read-only by default
      write: [notes/mcp/add_note]     # route ids or tool names, * wildcards
      destructive: []
    search: {k: 5, max_k: 20, rerank: true, executable_only: true, upstream_wait: 10}
    index: .schemarouter/index        # a saved index to load (optional)
    models: {encoder: models/my-encoder, ranking: shipped, reranker: none}   # optional
    credentials: {env_prefix: ""}     # credentials come from the environment
    calls: {timeout: 10, max_attempts: 2, max_seconds: 25}   # optional: each call's limits

Upstream servers register as **untrusted** unless ``trusted: true``: their tools are
``write`` (``destructive`` where they say so) whatever their annotations claim, so under the
default read-only policy no upstream tool runs until the ``allow`` section names it. A route
named under ``allow.write`` may run write calls, one under ``allow.destructive`` destructive
ones too; the gateway approves exactly those and nothing else.

The same source specs serve ``schemarouter retrieve`` and ``schemarouter serve`` on the
command line: ``--openapi [PROVIDER=]FILE|URL`` and ``--mcp-tools [PROVIDER=]FILE`` (the
provider defaults to an OpenAPI document's title, else its host; for a tool list, to the
file's stem).
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from schemarouter.contracts import Effect
from schemarouter.errors import DocumentError
from schemarouter.execution.invokers.mcp import DEFAULT_OPEN_TIMEOUT
from schemarouter.execution.invokers.mcp_listing import DEFAULT_MAX_TOOLS
from schemarouter.index.backend import is_milvus_uri
from schemarouter.placement import command_secrets, shown_command
from schemarouter.registry.compile import format_validation_error, slugify
from schemarouter.registry.kinds import check_kind
from schemarouter.registry.lines import with_line

__all__ = [
    "DEFAULT_MAX_K",
    "DEFAULT_SEARCH_K",
    "AllowSpec",
    "CallsSpec",
    "GatewayConfig",
    "McpServerSpec",
    "ModelsSpec",
    "SearchSpec",
    "SourceSpec",
    "check_providers",
    "load_config",
    "parse_source",
]

DEFAULT_SEARCH_K = 5
DEFAULT_MAX_K = 20
_URL = re.compile(r"^https?://", re.IGNORECASE)


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SourceSpec(_Spec):
    """An OpenAPI document or a recorded ``tools/list`` result: a path or an http(s) URL."""

    source: str = Field(min_length=1)
    provider: str | None = None
    base_url: str | None = None
    #: The caller's own word on effects (endpoint or tool name -> read/write/destructive).
    effect_overrides: dict[str, Effect] = Field(default_factory=dict)
    #: An OpenAPI document's server URL variables (``{region: eu}``) in place of defaults.
    server_variables: dict[str, str] = Field(default_factory=dict)

    def provider_id(self) -> str:
        """The provider given, else the file's stem or the URL's host (``.`` read as ``_``,
        so tool names stay readable). An OpenAPI document without one is named after its own
        title instead (``add_openapi(provider=None)``)."""
        if self.provider:
            return self.provider
        if _URL.match(self.source):
            host = re.sub(r"^https?://", "", self.source, flags=re.IGNORECASE).split("/")[0]
            return slugify(host.split(":")[0].replace(".", "_"))
        return slugify(Path(self.source).stem.replace(".", "_"))

    def resolved(self, base: Path) -> SourceSpec:
        if _URL.match(self.source) or Path(self.source).is_absolute():
            return self
        return self.model_copy(update={"source": str(base / self.source)})


class McpServerSpec(_Spec):
    """An upstream MCP server: a command (stdio) or a URL (streamable HTTP)."""

    provider: str = Field(min_length=1)
    command: list[str] | str | None = None
    url: str | None = None
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    #: Whether the server's annotations may make a tool read-only (default: no).
    trusted: bool = False
    default_effect: Effect | None = None
    effect_overrides: dict[str, Effect] = Field(default_factory=dict)
    #: Seconds to open the session and list its tools, and the longest one attempt of a call
    #: may take (an attempt past it drops the session; the next one reopens it). A read is
    #: tried up to 3 times (the error says how many, and how long in all), a write once.
    timeout: float = Field(default=DEFAULT_OPEN_TIMEOUT, gt=0)
    #: The cap of the server's replies, enforced while they are read (default: 10 MiB).
    max_response_bytes: int | None = Field(default=None, gt=0)
    #: Seconds a listing of the server's tools is trusted before a call lists them again
    #: (default: 0 for a URL, before every call, the safe choice; a stdio server is listed
    #: when it says its tools changed). Within it a tool removed or changed by a redeploy
    #: may still be forwarded under its old definition; each listing costs a round trip.
    relist_s: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    #: Leave out a tool whose definition cannot be registered (each named in the log)
    #: rather than the whole server (default: the whole server stays out).
    skip_invalid_tools: bool = False
    #: The most tools the server may list (default: 10,000); past it the server stays out,
    #: its listing not read further.
    max_tools: int = Field(default=DEFAULT_MAX_TOOLS, gt=0)

    @model_validator(mode="after")
    def _one_target(self) -> McpServerSpec:
        if (self.command is None) == (self.url is None):
            raise ValueError("give exactly one of command (stdio) or url (streamable HTTP)")
        if self.url is not None and not _URL.match(self.url):
            raise ValueError(f"url {self.url!r} must be an http(s) URL")
        if isinstance(self.command, list) and not self.command:
            raise ValueError("command must not be empty")
        if self.default_effect is not None and not self.trusted:
            # the adapter refuses it too, but only once the server is connected: the
            # upstream stayed `unavailable` and was retried every minute (trial D)
            raise ValueError(
                "default_effect applies to trusted servers only (trusted: true): an "
                "untrusted server's tools are write; declare single tools with "
                "effect_overrides"
            )
        return self

    def target(self) -> Sequence[str] | str:
        return self.url if self.url is not None else self.command  # type: ignore[return-value]

    def label(self) -> str:
        """The command or URL, for messages, as its routes name their server
        (:func:`~schemarouter.placement.shown_command`: a URL without its credentials or
        query, a command line without its secret flags' values; trial V1: a config error
        showed ``--api-key VALUE`` that the routes hid)."""
        return shown_command(self.target())

    def secrets(self) -> list[str]:
        """What of the URL or command line may be a secret (userinfo, query values, secret
        flags' values: :func:`~schemarouter.placement.command_secrets`), for redaction
        of what connecting to it raised."""
        return command_secrets(self.target())


class AllowSpec(_Spec):
    """Routes that may have effects (route ids or tool names, ``*`` wildcards)."""

    write: tuple[str, ...] = ()
    destructive: tuple[str, ...] = ()
    #: The licences a tool's output may be under to be offered and run (``CC-BY-4.0``);
    #: ``None``: any. A tool with a value under another, or none declared, is neither.
    licenses: tuple[str, ...] | None = None

    def effects_for(self, route_id: str, name: str) -> frozenset[Effect]:
        """The effects calls of this route may have (``read`` always)."""

        def named(patterns: Sequence[str]) -> bool:
            return any(
                fnmatch.fnmatchcase(route_id, p) or fnmatch.fnmatchcase(name, p) for p in patterns
            )

        effects = {Effect.READ}
        if named(self.write) or named(self.destructive):
            effects.add(Effect.WRITE)
        if named(self.destructive):
            effects.add(Effect.DESTRUCTIVE)
        return frozenset(effects)

    def unmatched(self, names: Mapping[str, str]) -> list[str]:
        """The entries under ``write`` and ``destructive`` that match no route id or tool
        name of ``names`` (route id -> tool name)."""
        return [
            pattern
            for pattern in dict.fromkeys((*self.write, *self.destructive))
            if not any(
                fnmatch.fnmatchcase(r, pattern) or fnmatch.fnmatchcase(n, pattern)
                for r, n in names.items()
            )
        ]


class CallsSpec(_Spec):
    """How the gateway makes each call (the router's ``ExecutionPolicy`` and ``Budget``):
    ``timeout`` bounds each attempt of a call (seconds; an upstream MCP server's own
    ``timeout``, where lower, still holds), ``max_attempts`` how many attempts a read gets
    (a write is sent once whatever this says), ``max_seconds`` a call's whole time,
    attempts and waits included: many MCP clients give up on a tool call long before the
    library's default of three 30 s attempts (user trial P). Unset: the library's defaults."""

    timeout: float | None = Field(default=None, gt=0)
    max_attempts: int | None = Field(default=None, ge=1, le=10)
    max_seconds: float | None = Field(default=None, gt=0)


class SearchSpec(_Spec):
    k: int = Field(default=DEFAULT_SEARCH_K, ge=1)
    max_k: int = Field(default=DEFAULT_MAX_K, ge=1)
    rerank: bool = True
    #: Search only routes that can run now (bound, healthy); False: every registered route.
    executable_only: bool = True
    #: Seconds a search waits for upstream servers still connecting (``serve`` answers its
    #: client at once and connects them in the background); after that it answers with what
    #: has joined and says which are still connecting.
    upstream_wait: float = Field(default=10.0, ge=0)

    @model_validator(mode="after")
    def _k_within_max(self) -> SearchSpec:
        if self.k > self.max_k:  # every search would be cut to max_k without a word
            raise ValueError(
                f"k ({self.k}) is above max_k ({self.max_k}): a search answers max_k tools "
                "at most; lower k or raise max_k"
            )
        return self


#: The words ``SchemaRouter`` reads in place of a model folder (``ranking`` and ``reranker``).
_MODEL_WORDS = ("shipped", "none")


class ModelsSpec(_Spec):
    """The models a gateway's router uses, as ``SchemaRouter`` takes them (unset: its
    default): ``encoder`` a folder ``schemarouter train-encoder`` wrote (an ``index`` must
    have been built with it: ``schemarouter index build --config FILE`` builds with it);
    ``ranking`` and ``reranker`` ``shipped``, ``none`` or a folder of ``train-ranking`` /
    ``train-reranker``. Flags of ``serve`` and ``retrieve`` (``--encoder`` ...) win."""

    encoder: str | None = Field(default=None, min_length=1)
    ranking: str | None = Field(default=None, min_length=1)
    reranker: str | None = Field(default=None, min_length=1)

    @model_validator(mode="after")
    def _encoder_is_a_folder(self) -> ModelsSpec:
        encoder = self.encoder
        if encoder is not None and encoder.lower() in _MODEL_WORDS:
            raise ValueError(  # read as a folder of that name in the working directory
                f"models.encoder is {encoder!r}, but it takes only a folder of "
                "`schemarouter train-encoder`: leave it out for the shipped encoder (a folder "
                f"of that name: ./{encoder})"
            )
        return self

    def options(self) -> dict[str, str]:
        """The ``SchemaRouter`` keywords set here (it reads ``shipped`` and ``none``)."""
        return self.model_dump(exclude_none=True)

    def resolved(self, base: Path) -> ModelsSpec:
        """Folders made relative to ``base``; ``shipped`` and ``none`` kept."""

        def path(value: str | None) -> str | None:
            if value is None or value.lower() in _MODEL_WORDS or Path(value).is_absolute():
                return value
            return str(base / value)

        return ModelsSpec(
            encoder=path(self.encoder), ranking=path(self.ranking), reranker=path(self.reranker)
        )


class CredentialSpec(_Spec):
    #: Credentials are read from environment variables named ``env_prefix + NAME``.
    env_prefix: str = ""


class GatewayConfig(_Spec):
    """What ``schemarouter serve`` registers and allows (see the module docstring)."""

    name: str = "schemarouter"
    catalogs: tuple[str, ...] = ()
    openapi: tuple[SourceSpec, ...] = ()
    mcp_tools: tuple[SourceSpec, ...] = ()
    #: OPTIMADE services: a base URL (``https://.../v1``), or a JSON/YAML file of recorded
    #: ``{"info": ..., "info/structures": ...}`` payloads with ``base_url`` to call.
    optimade: tuple[SourceSpec, ...] = ()
    mcp_servers: tuple[McpServerSpec, ...] = ()
    allow: AllowSpec = Field(default_factory=AllowSpec)
    search: SearchSpec = Field(default_factory=SearchSpec)
    index: str | None = None
    models: ModelsSpec = Field(default_factory=ModelsSpec)
    credentials: CredentialSpec = Field(default_factory=CredentialSpec)
    calls: CallsSpec = Field(default_factory=CallsSpec)
    #: a source that cannot be registered (a malformed document in a nightly folder) is left
    #: out with a warning naming it and why, where by default it refuses the whole run
    skip_invalid: bool = False

    @model_validator(mode="after")
    def _server_variables_of_openapi(self) -> GatewayConfig:
        for key, specs in (("mcp_tools", self.mcp_tools), ("optimade", self.optimade)):
            for i, spec in enumerate(specs):
                if spec.server_variables:  # nothing would read them: say so
                    raise ValueError(
                        f"{key}[{i}].server_variables: only an openapi entry's servers have "
                        "URL variables"
                    )
        return self

    @model_validator(mode="after")
    def _reranker_searched(self) -> GatewayConfig:
        reranker = self.models.reranker
        if reranker and reranker.lower() != "none" and not self.search.rerank:
            raise ValueError(  # one of the two would be ignored without a word
                f"models.reranker is {self.models.reranker!r} but search.rerank is false: "
                "drop one of the two"
            )
        return self

    def resolved(self, base: Path) -> GatewayConfig:
        """Relative paths made relative to ``base`` (the config file's folder)."""

        def path(value: str) -> str:
            return value if Path(value).is_absolute() else str(base / value)

        servers = tuple(
            s.model_copy(update={"cwd": path(s.cwd)}) if s.cwd else s for s in self.mcp_servers
        )
        return self.model_copy(
            update={
                "catalogs": tuple(path(c) for c in self.catalogs),
                "openapi": tuple(s.resolved(base) for s in self.openapi),
                "mcp_tools": tuple(s.resolved(base) for s in self.mcp_tools),
                "optimade": tuple(s.resolved(base) for s in self.optimade),
                "mcp_servers": servers,
                "models": self.models.resolved(base),
                # a Milvus URI is no path (``milvus://host/routes``, ``milvus+lite:///x.db``)
                "index": self.index
                and (self.index if is_milvus_uri(self.index) else path(self.index)),
            }
        )


def load_config(path: str | Path) -> GatewayConfig:
    """Read and check a gateway config file; a DocumentError says where it is wrong."""
    from schemarouter.registry.catalog import read_structured_file

    file = Path(path)
    data = read_structured_file(file)
    check_kind(data, "config", where=str(file))
    if not isinstance(data, Mapping):
        raise DocumentError(
            f"a gateway config must be a mapping, got {type(data).__name__}",
            where=str(file),
            hint="Start with 'catalogs:', 'openapi:' or 'mcp_servers:'",
        )
    try:
        config = GatewayConfig.model_validate(_expanded(data, where=str(file)))
    except ValidationError as exc:
        what, loc = format_validation_error(exc)
        raise DocumentError(
            what, where=_where(file, loc), hint="See `schemarouter serve --help` for the format"
        ) from None
    check_providers(config, where=str(file))
    return config.resolved(file.resolve().parent)


def _where(file: Path, loc: str) -> str:
    """``FILE:LINE: loc``: the line read back from the file (on the error path only), so the
    author of a long config need not count keys (trial P); ``FILE: loc`` where it is not
    found."""
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return f"{file}: {loc}"
    return with_line(str(file), text, loc)


#: ``${NAME}``: an environment variable of the gateway, in an upstream's ``env`` or ``url``;
#: ``$${NAME}`` is the text ``${NAME}`` itself (a password or URL that holds it literally).
_VARIABLE = re.compile(r"\$(\$?)\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _expanded(data: Mapping[str, Any], *, where: str) -> Mapping[str, Any]:
    """``data`` with each ``${NAME}`` in an upstream server's ``env`` values and ``url`` read
    from the gateway's environment, so a secret an upstream needs stays out of the file. An
    unset ``NAME`` is a :class:`DocumentError` naming it and the key. Before, the text went
    to the server as written: a stdio upstream got ``${DB_PASSWORD}`` as its password, and
    nothing said so (user trial P). A URL that is no http(s) one once read is refused as
    written (trial X3: the check after it echoed the value, credential included). ``$${NAME}``
    is written as the text ``${NAME}``, for a value that holds it literally (trial X3: there
    was no way to write one)."""
    servers = data.get("mcp_servers")
    if not isinstance(servers, list):
        return data

    def expand(text: str, key: str) -> str:
        def value(match: re.Match[str]) -> str:
            escaped, name = match.groups()
            if escaped:
                return "${" + name + "}"
            found = os.environ.get(name)
            if found is None:
                raise DocumentError(
                    f"${{{name}}} is not set in the gateway's environment",
                    where=f"{where}: {key}",
                    hint=f"Set {name} before starting the gateway, or write the value",
                )
            return found

        return _VARIABLE.sub(value, text)

    out = []
    for i, server in enumerate(servers):
        if isinstance(server, Mapping):
            server = dict(server)
            written = server.get("url")
            if isinstance(written, str):
                server["url"] = expand(written, f"mcp_servers[{i}].url")
                if server["url"] != written and not _URL.match(server["url"]):
                    raise DocumentError(  # named as written: the value may be a secret
                        f"url {written!r} is no http(s) URL once read from the environment",
                        where=f"{where}: mcp_servers[{i}].url",
                        hint="Give the variables values that make an http(s) URL (their "
                        "values are not shown: they may hold a credential)",
                    )
            env = server.get("env")
            if isinstance(env, Mapping):
                server["env"] = {
                    k: expand(v, f"mcp_servers[{i}].env.{k}") if isinstance(v, str) else v
                    for k, v in env.items()
                }
        out.append(server)
    return {**data, "mcp_servers": out}


def check_providers(config: GatewayConfig, *, where: str) -> None:
    """Refuse two upstream servers with one provider name: the gateway keys upstreams by
    provider, so which of them registered would depend on which connected first."""
    seen: dict[str, int] = {}
    for i, server in enumerate(config.mcp_servers):
        first = seen.setdefault(server.provider, i)
        if first == i:
            continue
        other = config.mcp_servers[first]
        raise DocumentError(
            f"mcp_servers[{first}] ({other.label()[:80]}) and mcp_servers[{i}] "
            f"({server.label()[:80]}) both have provider {server.provider!r}",
            where=f"{where}: mcp_servers[{i}].provider",
            hint="Give each upstream server a provider name of its own",
        )


def parse_source(text: str) -> SourceSpec:
    """``[PROVIDER=]FILE|URL`` from the command line; a DocumentError where no file or URL
    is given (``NAME=``, ``''``), so the CLI reports it on one line like other bad sources.

    The provider is kept as written, as ``provider="NAME"`` is in Python (its slug is the
    id, the name as written its display name), so a CLI-built index loads in a process
    registering the same source. Text before ``=`` is a provider where it is a plain name
    (``[A-Za-z0-9_.-]+``), or any other text without a path separator (``八字_mcp``, as the
    API takes it) where the whole argument is not an existing path."""
    provider, sep, source = text.partition("=")
    named = bool(sep) and not _URL.match(text) and _names_provider(provider, text)
    if not (source if named else text).strip():
        raise DocumentError(
            "no file or URL given",
            where=f"source {text!r}",
            hint="Write [PROVIDER=]FILE or [PROVIDER=]URL, such as weather=specs/weather.yaml",
        )
    if named:
        return SourceSpec(source=source, provider=provider)
    return SourceSpec(source=text)


def _names_provider(provider: str, text: str) -> bool:
    """Whether ``provider``, the text before the first ``=`` of ``text``, names one."""
    if re.fullmatch(r"[A-Za-z0-9_.\-]+", provider):
        return True
    if not provider.strip() or "/" in provider or "\\" in provider:
        return False
    try:
        return not Path(text).exists()  # a file whose name has an "=" is read as a path
    except OSError:  # a name too long to be a path
        return True
