"""The gateway: a router built from a config, and the three operations the server exposes.

:class:`Gateway` answers ``search_tools``, ``describe_tool`` and ``call_tool`` through the
router's public API only (``retrieve_executable`` / ``retrieve``, ``call`` / ``acall``), so
the gate, policy, health and output validation apply unchanged. It adds the gateway's own
policy on top: a route may run write (or destructive) calls only where the config's
``allow`` section names it, and the gateway approves exactly those calls; search offers only
tools that can run under that policy (``search.executable_only``, the default).
"""

from __future__ import annotations

import contextlib
import copy
import logging
import re
import threading
import time
from collections.abc import Mapping
from typing import Any

import httpx

from schemarouter.contracts import Effect, Route, SourceType
from schemarouter.errors import GateError, PolicyError, SchemaRouterError
from schemarouter.execution.credentials import EnvironmentCredentials
from schemarouter.execution.invokers.payload import clip
from schemarouter.execution.policy import Budget, ExecutionPolicy
from schemarouter.execution.results import CallResult
from schemarouter.integrations.definitions import tool_definition
from schemarouter.integrations.names import provider_part, route_for_tool, tool_name
from schemarouter.integrations.search import available_credentials
from schemarouter.integrations.wording import agent_error, agent_hint
from schemarouter.registry.registry import RegistrySnapshot
from schemarouter.retrieval.prerequisites import identifier_sources
from schemarouter.retrieval.results import (
    CandidateField,
    CapabilityRetrieval,
    candidate_from_route,
    compact_field,
)
from schemarouter.retrieval.state import Exclusion, ExecutionState, blocked_summary
from schemarouter.serve.config import GatewayConfig
from schemarouter.serve.generation import IndexState
from schemarouter.serve.sources import build_router, connect_server
from schemarouter.serve.upstreams import Upstreams

__all__ = ["Gateway", "error_text"]

logger = logging.getLogger(__name__)

#: Seconds :meth:`Gateway.close` waits at most for the connection threads to end once it
#: has closed (and cancelled) their sessions.
_CLOSE_WAIT = 1.0
#: How many ranked routes search looks at to fill ``k`` with tools the policy allows.
_SEARCH_DEPTH = 50
#: What to do about tools a search leaves out, per reason (the gateway's words).
_GATEWAY_HINTS = {
    "effect": "allow them in the gateway config (allow.write or allow.destructive) or with "
    "serve --allow-write / --allow-destructive",
    "credentials": "set their credentials in this server's environment",
    "unbound": "no document or server here can run them (no base URL or live session)",
    "unhealthy": "they failed repeatedly and come back after a cooldown",
    "license": "their data's license is not one the gateway config allows (allow.licenses)",
}


def _returned(item: CandidateField, source_type: SourceType, license: str | None) -> dict[str, Any]:
    """An output field as ``describe_tool`` says it: the compact contract's field
    (:func:`~schemarouter.retrieval.results.compact_field`) with its path, and a field's own
    undeclared licence beside a declared one as "not declared"."""
    out = {"name": item.name, "path": item.path, **compact_field(item, source_type, license)}
    if "license" in out and out["license"] is None:
        out["license"] = "not declared"
    return out


class _Allowed:
    """The route ids a gateway lets run, checked one at a time (``in``)."""

    def __init__(self, gateway: Gateway, snapshot: Any) -> None:
        self.gateway, self.snapshot = gateway, snapshot

    def __contains__(self, route_id: object) -> bool:
        route = self.snapshot.routes.get(route_id) if isinstance(route_id, str) else None
        return route is not None and self.gateway.allows(route)


#: how much of the request ``search_tools`` echoes back
_QUERY_ECHO = 200


def _unavailable(name: str, failed: Mapping[str, str] | None) -> str:
    """What a call to an unknown tool is told of the upstreams that failed: the reason of
    the one its name starts with (the likely cause), else only which failed (trial G: every
    failed upstream's whole reason, 900 characters, came with every unknown name)."""
    if not failed:
        return ""
    own = {re.sub(r"[^A-Za-z0-9_-]", "_", p): p for p in failed}.get(provider_part(name))
    if own is not None:
        return f"upstream {own} is unavailable: {failed[own]}"
    plural = "s" if len(failed) > 1 else ""
    return (
        f"upstream{plural} {', '.join(sorted(failed))} unavailable (why: unavailable in a "
        "search_tools answer)"
    )


def _not_named(route: Route) -> str:
    effect = route.endpoint.effect.value
    return f"effect {effect}, not named under allow.{effect}"


def _per_route(exclusion: Exclusion, snapshot: Any) -> Exclusion:
    """An effect exclusion worded for the gateway, whose config allows write and
    destructive routes one by one ("effect destructive, not named under allow.destructive",
    not "only read, write" when write is allowed for one named tool)."""
    route = snapshot.routes.get(exclusion.route_id)
    if exclusion.reason != "effect" or route is None:
        return exclusion
    return exclusion.model_copy(update={"detail": _not_named(route)})


class _SharedClient:
    """The gateway's HTTP client, made on first use and shared by its pinned views."""

    def __init__(self) -> None:
        self.client: httpx.AsyncClient | None = None

    def get(self) -> httpx.AsyncClient:
        if self.client is None:
            self.client = httpx.AsyncClient(follow_redirects=False)
        return self.client

    async def aclose(self) -> None:
        client, self.client = self.client, None
        if client is not None:
            await client.aclose()


class Gateway:
    """``search_tools`` / ``describe_tool`` / ``call_tool`` over one router."""

    def __init__(self, router: Any, config: GatewayConfig | None = None) -> None:
        self.router = router
        self.config = config or GatewayConfig()
        self.credentials = EnvironmentCredentials(prefix=self.config.credentials.env_prefix)
        self._http = _SharedClient()  # one for the gateway and every pinned view of it
        #: upstream servers connecting in the background (``from_config(background=True)``)
        self.upstreams = Upstreams()
        self._allow_checked = threading.Event()
        #: set by :meth:`close` (``/readyz`` answers 503 from then on)
        self.closed = False
        #: the index it answers from (:mod:`schemarouter.serve.generation`; ``/readyz``)
        self.index_state = IndexState()
        #: what ``SIGHUP`` builds its new router with (:func:`~.generation.reload`)
        self.router_options: dict[str, Any] = {}
        self.reload_lock = threading.Lock()

    @classmethod
    def from_config(
        cls, config: GatewayConfig, *, background: bool = False, **router_options: Any
    ) -> Gateway:
        """The gateway of ``config``. ``background=True`` (what ``serve`` does) registers the
        config's own sources and returns while its upstream servers connect, all at once,
        each joining when it has listed its tools; otherwise every server is connected
        first."""
        if not background:
            gateway = cls(build_router(config, **router_options), config)
            gateway.router_options = dict(router_options)
            gateway._check_credentials()
            return gateway
        gateway = cls(build_router(config, servers=False, **router_options), config)
        gateway.router_options = dict(router_options)
        gateway._check_credentials()
        gateway.upstreams.start(config.mcp_servers, lambda s: connect_server(gateway.router, s))
        return gateway

    def pinned(self) -> Gateway:
        """This gateway with its router as it is now, for one request: a reload
        (:func:`~schemarouter.serve.generation.reload`) replaces :attr:`router`, and a
        request that read it twice could have ranked with one generation and answered with
        the other. Everything else (upstreams, the HTTP client, the config) is shared."""
        return copy.copy(self)

    def _check_credentials(self) -> None:
        """Say once, at start, which environment variables the registered routes need and
        this server lacks, named as they are read (``credentials.env_prefix`` included): a
        search leaves those routes out and a call is refused, and the operator learnt
        neither the variable nor that it was missing (user trial P)."""
        snapshot = self.router.snapshot()
        needed: dict[str, list[str]] = {}
        for route in snapshot.routes.values():
            for name in self._credentials_missing(route, snapshot):
                needed.setdefault(self.credentials.prefix + name, []).append(route.route_id)
        if not needed:
            return
        routes = {r for ids in needed.values() for r in ids}
        said = "; ".join(
            f"${variable} ({', '.join(ids[:5])}"
            + (f" and {len(ids) - 5} more)" if ids[5:] else ")")
            for variable, ids in sorted(needed.items())
        )
        logger.warning(
            "gateway: %d route%s need%s credentials this server's environment does not have, "
            "so %s not offered and %s calls are refused: %s; set the variables and restart",
            len(routes),
            "s" if len(routes) > 1 else "",
            "" if len(routes) > 1 else "s",
            "they are" if len(routes) > 1 else "it is",
            "their" if len(routes) > 1 else "its",
            said,
        )

    # -- policy ------------------------------------------------------------------------------

    def effects_for(self, route: Route) -> frozenset[Effect]:
        """The effects this gateway lets ``route`` have (read; more where the config names it)."""
        name = tool_name(route.route_id, snapshot=self.router.snapshot())
        return self.config.allow.effects_for(route.route_id, name)

    def allows(self, route: Route) -> bool:
        return route.endpoint.effect in self.effects_for(route)

    # -- search ------------------------------------------------------------------------------

    def _k(self, k: int | None) -> int:
        search = self.config.search
        if k is None:
            return search.k
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(f"k must be a whole number from 1 to {search.max_k}, got {k!r}")
        return min(k, search.max_k)

    def _credentials_here(self, snapshot: Any) -> frozenset[str]:
        """The credential names routes declare that this server's environment supplies."""
        return available_credentials(snapshot, self.credentials)

    def _credentials_missing(self, route: Route, snapshot: Any) -> list[str]:
        """The credentials ``route`` requires that this server's environment lacks (none
        for an optional scheme), as a search leaves the route out for them."""
        auth = route.access.auth
        if auth.optional:
            return []
        return sorted(set(auth.credentials) - self._credentials_here(snapshot))

    def retrieve(self, query: str, k: int | None = None) -> CapabilityRetrieval:
        """The ``k`` best tools for ``query`` that may run under this gateway's policy: bound,
        healthy, with their credentials in this server's environment and an effect the
        config allows. Where better matches were left out, ``blocked`` says which and why
        (``search.executable_only: false`` lists every route instead)."""
        if not isinstance(query, str) or not query.strip():
            raise ValueError("query must be a non-empty text")
        k = self._k(k)
        if not self.config.search.executable_only:
            result: CapabilityRetrieval = self.router.retrieve(query, k=k)
            return result
        allowed = {Effect.READ}
        if self.config.allow.write or self.config.allow.destructive:
            allowed |= {Effect.WRITE}
        if self.config.allow.destructive:
            allowed |= {Effect.DESTRUCTIVE}
        licenses = self.config.allow.licenses
        state = ExecutionState(
            allowed_effects=frozenset(allowed),
            credentials=self._credentials_here(self.router.snapshot()),
            allowed_licenses=None if licenses is None else frozenset(licenses),
        )
        depth = k if allowed == {Effect.READ} else max(k, _SEARCH_DEPTH)
        found: CapabilityRetrieval = self.router.retrieve_executable(query, k=depth, state=state)
        # the registry as of after the retrieval: an upstream that joined meanwhile (``serve``
        # connects them in the background) has its routes in it; one removed is never offered
        snapshot = self.router.snapshot()
        # the state allowed every effect some route may have; say it per route, as below
        kept, exclusions = [], [_per_route(e, snapshot) for e in found.exclusions]
        for candidate in found.candidates:
            route = snapshot.routes.get(candidate.route_id)
            if route is None:
                continue
            if self.allows(route):
                kept.append(candidate)
            else:  # the gateway's own policy: effects only where the config names the route
                exclusions.append(
                    Exclusion(
                        route_id=route.route_id,
                        rank=found.original_ranks.get(route.route_id, candidate.rank),
                        reason="effect",
                        detail=_not_named(route),
                    )
                )
        kept = kept[:k]
        within = max((found.original_ranks.get(c.route_id, 0) for c in kept), default=k)
        within = max(within, k)  # left out above the last tool offered, or among the best k
        blocked = blocked_summary(
            exclusions,
            within=within,
            name=lambda route_id: tool_name(route_id),
            hints=_GATEWAY_HINTS,
            noun="tool",
        )
        return found.model_copy(
            update={
                "candidates": tuple(kept),
                "k": k,
                "exclusions": tuple(sorted(exclusions, key=lambda e: e.rank)),
                "blocked": blocked,
            }
        )

    def search(self, query: str, k: int | None = None) -> dict[str, Any]:
        """What ``search_tools`` answers: MCP tool definitions, best first. Upstream servers
        still connecting get ``search.upstream_wait`` seconds to join first."""
        if self.upstreams.connecting():
            self.upstreams.wait(self.config.search.upstream_wait)
        found = self.retrieve(query, k)
        tools = []
        snapshot = self.router.snapshot()
        # a tool removed since the retrieval (an upstream listed again) is not offered
        candidates = [c for c in found.candidates if c.route_id in snapshot.routes]
        offered = {c.route_id: tool_name(c.route_id, snapshot=snapshot) for c in candidates}
        for candidate in candidates:
            # an identifier another offered tool returns names it (call that one first)
            definition = tool_definition(
                candidate, "mcp", tool_names=offered, name=offered[candidate.route_id]
            )
            definition["effect"] = candidate.effect.value
            # what its values are under, as describe_tool says it (trial U4: a search offered
            # tools with no word of their licence, which an agent bound by one must know)
            definition["license"] = candidate.values_standing()[1]
            tools.append(definition)
        # the request is the model's own words: echo enough to tell which, not 100 kB of it
        answer: dict[str, Any] = {"query": clip(found.query, _QUERY_ECHO), "tools": tools}
        asked = self.config.search.max_k
        if isinstance(k, int) and not isinstance(k, bool) and k > asked:
            answer["capped"] = f"k={k} is above search.max_k={asked}: {asked} tools at most"
        if found.blocked:
            # better matches exist that cannot run here: say which and why, never offer them
            answer["blocked"] = found.blocked
        operator = "the gateway's operator"
        if found.off_catalog:
            # the best tools are still offered; the verdict lets the model ask or say so
            answer["off_catalog"] = True
            answer["reason"] = found.reason and agent_hint(found.reason, operator=operator)
        if found.confidence is not None:
            answer["confidence"] = round(found.confidence, 4)
        answer.update(self.upstreams.note())  # upstreams still connecting, or that failed
        self._check_allow()
        if not tools:
            answer["reason"] = agent_hint(
                found.reason or found.blocked or "no registered tool that may run here matches",
                operator=operator,
            )
        return answer

    def _check_allow(self) -> None:
        """Say once, when no upstream is connecting for the first time any more, which
        ``allow`` entries match no registered tool: a typo (``create_evnt``) allowed
        nothing, and nothing said so (user trial S #9)."""
        if self._allow_checked.is_set() or self.upstreams.connecting():
            return
        self._allow_checked.set()
        snapshot = self.router.snapshot()
        names = {r: tool_name(r, snapshot=snapshot) for r in snapshot.routes}
        for pattern in self.config.allow.unmatched(names):
            logger.warning(
                "gateway config: allow entry %r matches no registered tool (a typo, or its "
                "server has not joined: see unavailable in a search answer)",
                pattern,
            )

    # -- describe ----------------------------------------------------------------------------

    def _route_named(self, name: str) -> Route:
        """The route of tool ``name``. A name not registered, or registered but not bound
        yet, while upstream servers are still connecting gets ``search.upstream_wait``
        seconds for them to join (as a search does); still unknown, the error says which
        upstreams are connecting or failed (still unbound: that it cannot run yet)."""
        try:
            route = self._registered(name)
        except GateError as unknown:
            if self.upstreams.connecting():
                self.upstreams.wait(self.config.search.upstream_wait)
                with contextlib.suppress(GateError):
                    return self._registered(name)
            note = self.upstreams.note()
            if not note:
                raise
            said = [note.get("connecting", ""), _unavailable(name, note.get("unavailable"))]
            hint = "; ".join(s for s in said if s) + f". {unknown.hint or ''}"
            raise GateError(unknown.what, where=unknown.where, hint=hint) from None
        if self.router.is_bound(route.route_id) or not self.upstreams.connecting():
            return route
        # registered but not bound yet: its upstream is still connecting (its tools are
        # registered, then embedded, then bound): wait as for a name not registered yet
        self.upstreams.wait(self.config.search.upstream_wait)
        route = self._registered(name)
        if not self.router.is_bound(route.route_id) and self.upstreams.connecting():
            why = self.upstreams.note().get("connecting", "its server is still connecting")
            raise PolicyError(
                f"tool {name[:200]!r} cannot run yet: {why}",
                where=route.route_id,
                hint="Call it again in a few seconds",
            )
        return route

    def _registered(self, name: str) -> Route:
        snapshot = self.router.snapshot()
        route: Route = snapshot.route(route_for_tool(snapshot, name))
        return route

    def describe(self, name: str) -> dict[str, Any]:
        """Everything a model may want before calling ``name``: its definition, what it
        returns (fields, types, units, meaning, provenance), its effect and whether it may
        run here."""
        route = self._route_named(name)
        snapshot = self.router.snapshot()
        # a required identifier that another tool this gateway lets run returns names it
        allowed = _Allowed(self, snapshot)
        sources = identifier_sources(snapshot, route, allowed)
        candidate = candidate_from_route(route, rank=0, score=0.0, identifier_sources=sources)
        names = {s.route_id: tool_name(s.route_id, snapshot=snapshot) for s in sources.values()}
        definition = tool_definition(
            candidate,
            "mcp",
            tool_names=names,
            name=tool_name(route.route_id, snapshot=snapshot),
        )
        # the values' own standing: a field's license or source type where it is not the
        # route's (before, the provider's CC-BY-4.0 was said of a route whose every field is
        # CC-BY-NC-4.0, and nothing of the field's own: user trial U4)
        source_type, license = candidate.values_standing()
        licences, outside = self.config.allow.licenses, route.licenses_outside
        definition.update(
            {
                "route_id": route.route_id,
                "provider": route.provider.display_name,
                "effect": route.endpoint.effect.value,
                # the config's effects and licences (allow.write ..., allow.licenses)
                "allowed": self.allows(route) and (licences is None or not outside(licences)),
                # as search_tools decides it: bound, healthy, its credentials here
                "executable": self.router.is_bound(route.route_id)
                and self.router.is_healthy(route.route_id)
                and not self._credentials_missing(route, snapshot),
                "credentials": list(route.access.auth.credentials),
                "returns": [_returned(f, source_type, license) for f in candidate.output_fields],
                "source_type": source_type.value,
                "license": license,
            }
        )
        return definition

    # -- call --------------------------------------------------------------------------------

    def _call_options(self, route: Route) -> dict[str, Any]:
        effects = self.effects_for(route)
        if route.endpoint.effect not in effects:
            raise PolicyError(
                f"tool {tool_name(route.route_id, snapshot=self.router.snapshot())!r} has "
                f"effect {route.endpoint.effect.value}; "
                "this gateway runs it only where its config or flags allow it",
                where=f"call ({route.route_id})",
                hint=f"Name it under allow.{route.endpoint.effect.value} in the gateway config, "
                f"or start serve with --allow-{route.endpoint.effect.value} NAME",
            )

        def approve(approved: Route, arguments: Mapping[str, Any]) -> bool:
            return approved.route_id == route.route_id and approved.endpoint.effect in effects

        options: dict[str, Any] = {
            "allow_effects": effects,
            "approve": approve,
            "credentials": self.credentials,
            "allow_licenses": self.config.allow.licenses,
        }
        calls = self.config.calls
        limits = {"timeout": calls.timeout, "max_attempts": calls.max_attempts}
        if any(v is not None for v in limits.values()):
            options["policy"] = ExecutionPolicy(
                **{k: v for k, v in limits.items() if v is not None}
            )
        if calls.max_seconds is not None:
            options["budget"] = Budget(max_seconds=calls.max_seconds)
        return options

    def call(self, name: str, arguments: Mapping[str, Any] | None = None) -> CallResult:
        route = self._route_named(name)
        started = time.monotonic()
        try:
            result: CallResult = self.router.call(
                route.route_id, arguments or {}, **self._call_options(route)
            )
        except Exception as exc:
            self._log_call(name, route, started, exc)
            raise
        self._log_call(name, route, started, result)
        return result

    async def acall(self, name: str, arguments: Mapping[str, Any] | None = None) -> CallResult:
        route = self._route_named(name)
        options = self._call_options(route)
        started = time.monotonic()
        try:
            result: CallResult = await self.router.acall(
                route.route_id, arguments or {}, client=self._http.get(), **options
            )
        except Exception as exc:
            self._log_call(name, route, started, exc)
            raise
        self._log_call(name, route, started, result)
        return result

    @staticmethod
    def _log_call(name: str, route: Route, started: float, outcome: Any) -> None:
        """One INFO record per call (``serve --log-level info``): the tool, its route and
        effect, how it ended (the result's status, or the error's code) and how long it took;
        never its arguments or output. Before, a call that ran left no trace in the log, a
        write the gateway approved included (user trial P)."""
        if isinstance(outcome, BaseException):
            ended = f"{type(outcome).__name__} [{getattr(outcome, 'code', '-')}]"
        else:
            ended = str(getattr(outcome.status, "value", outcome.status))
        logger.info(
            "call %s (%s, %s): %s in %.0f ms",
            name,
            route.route_id,
            route.endpoint.effect.value,
            ended,
            (time.monotonic() - started) * 1000,
        )

    # -- lifetime ----------------------------------------------------------------------------

    async def aclose(self) -> None:
        await self._http.aclose()
        self.close()

    def close(self) -> None:
        """Close the upstream sessions (the router's) without waiting for a server: one
        still connecting (slow to start, or never answering) is cancelled, a stdio server
        it started stopped, and one waiting to be tried again is not; the log says which.
        Before, closing waited for the connections under way (about 30 s: user trial S)."""
        self.closed = True
        stopped = self.upstreams.halt()  # no server tried again, no new attempt
        # every session closed, those still opening cancelled (their processes stopped)
        self.router.close()
        # an attempt that was starting opens its session within a moment: closed too. A
        # thread still registering a server's tools (embedding them) holds only a closed
        # session: it is not waited for
        deadline = time.monotonic() + _CLOSE_WAIT
        while not self.upstreams.join(0.05) and time.monotonic() < deadline:
            self.router.close()
        self.router.close()
        stdio = {s.provider for s in self.config.mcp_servers if s.command is not None}
        for provider, what in stopped.items():
            logger.warning(
                "gateway closing: upstream %s %s",
                provider,
                "had not connected: it is not tried again"
                if what == "waiting"
                else "was still connecting: cancelled"
                + " (its server process was stopped)" * (provider in stdio),
            )


def error_text(error: BaseException, snapshot: RegistrySnapshot | None = None) -> str:
    """What a client reads of a refusal or failure (foreign text in it already cut; any
    other error's text cut here, before it is relayed); a hint naming a Python call the
    agent cannot make says what it can do instead, and the call's route is named by its
    tool name (as ``snapshot`` names it), never by route id (:func:`agent_error`, the
    wording the in-process renderings use too)."""
    if isinstance(error, SchemaRouterError):
        text = agent_error(error, snapshot=snapshot, operator="the gateway's operator")
        return clip(text, 2000)
    if isinstance(error, ValueError):
        return clip(str(error), 2000)
    return clip(f"{type(error).__name__}: {error}", 2000)
