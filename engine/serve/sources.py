"""A router built from a gateway config: its sources registered (OpenAPI documents, recorded
MCP listings, OPTIMADE services, catalogs), its upstream MCP servers connected, its saved
index and models opened (:func:`build_router`)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from schemarouter.errors import DocumentError, SchemaRouterError
from schemarouter.placement import shown_command
from schemarouter.serve.config import GatewayConfig, McpServerSpec, SourceSpec

__all__ = [
    "build_router",
    "connect_server",
    "openapi_documents",
    "register_sources",
    "served_index",
]

logger = logging.getLogger(__name__)


def _read_tools(spec: SourceSpec) -> Any:
    from schemarouter.registry.catalog import read_structured_file
    from schemarouter.registry.kinds import check_kind
    from schemarouter.registry.parsing import load_document

    if spec.source.lower().startswith(("http://", "https://")):
        data = load_document(spec.source).data
    else:
        data = read_structured_file(Path(spec.source))
    check_kind(data, "mcp_tools", where=spec.source)  # an OpenAPI file: say --openapi
    return data


def _add_openapi(router: Any, spec: SourceSpec) -> Any:
    return router.add_openapi(
        spec.source,
        provider=spec.provider,  # none given: the document's title, else its host
        base_url=spec.base_url,
        effect_overrides=spec.effect_overrides or None,
        server_variables=spec.server_variables or None,
    )


def _add_mcp_tools(router: Any, spec: SourceSpec) -> Any:
    return router.add_mcp_tools(
        _read_tools(spec),
        provider=spec.provider_id(),
        server=spec.base_url,
        effect_overrides=spec.effect_overrides or None,
    )


def _add_optimade(router: Any, spec: SourceSpec) -> Any:
    return router.add_optimade(spec.source, provider=spec.provider_id(), base_url=spec.base_url)


def openapi_documents(spec: SourceSpec) -> list[SourceSpec]:
    """``spec``, or where its source is a local folder, one spec per ``*.json``, ``*.yaml``
    and ``*.yml`` file under it (sorted; drafts, hidden files and a saved index's files
    left out, as in a catalog folder), each document naming its own provider (its title,
    else its host): a folder of a platform's OpenAPI documents is one source to give."""
    from schemarouter.registry.catalog import CATALOG_SUFFIXES
    from schemarouter.registry.catalog_folder import folder_files

    if spec.source.lower().startswith(("http://", "https://")) or not Path(spec.source).is_dir():
        return [spec]
    if spec.provider:
        raise DocumentError(
            f"a folder of OpenAPI documents is given one provider ({spec.provider!r}), "
            "which every document in it would register under",
            where=spec.source,
            hint="Leave PROVIDER= out for a folder (each document is named by its title), "
            "or give the documents one by one",
        )
    files = folder_files(Path(spec.source), CATALOG_SUFFIXES, what="OpenAPI documents")
    return [spec.model_copy(update={"source": str(f)}) for f in files]


def register_sources(
    router: Any,
    *,
    catalogs: tuple[str, ...] = (),
    openapi: tuple[SourceSpec, ...] = (),
    mcp_tools: tuple[SourceSpec, ...] = (),
    optimade: tuple[SourceSpec, ...] = (),
    failed: list[tuple[str, SchemaRouterError]] | None = None,
    progress: bool = False,
) -> list[tuple[str, Any]]:
    """Register catalogs, OpenAPI documents (a folder of them: each file under it) and
    recorded ``tools/list`` results; return each source with its
    :class:`~schemarouter.registry.registry.RegistryChange` (whose ``warnings`` say what was
    read as meant, renamed or left out). The first source that cannot be registered raises
    its error, unless ``failed`` is given: then each such source and its error go there and
    the others are registered (each source registers whole or not at all), so a batch build
    can name every bad document at once. ``progress``: a bar (or, in a log, a line at each
    tenth) of the sources registered, on stderr."""
    from schemarouter.index.cache import progress_bar
    from schemarouter.registry.progress import lines_on_stderr

    steps: list[tuple[str, Callable[[], Any]]] = [
        (catalog, partial(router.add_catalog, catalog)) for catalog in catalogs
    ]
    for spec in openapi:
        try:
            documents = openapi_documents(spec)
        except SchemaRouterError as exc:
            if failed is None:
                raise
            failed.append((spec.source, exc))
            continue
        steps += [(d.source, partial(_add_openapi, router, d)) for d in documents]
    steps += [(spec.source, partial(_add_mcp_tools, router, spec)) for spec in mcp_tools]
    steps += [(spec.source, partial(_add_optimade, router, spec)) for spec in optimade]
    changes: list[tuple[str, Any]] = []
    bar = progress_bar(progress, len(steps), "registering", "sources")
    try:
        with lines_on_stderr(progress):  # how far a large source got
            for source, register in steps:
                try:
                    changes.append((source, register()))
                except SchemaRouterError as exc:
                    if failed is None:
                        raise
                    failed.append((source, exc))
                if bar is not None:
                    bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return changes


def connect_server(router: Any, server: McpServerSpec) -> Any:
    """Connect one upstream server of a config; register and bind its tools."""
    return router.add_mcp_server(
        server.target(),
        provider=server.provider,
        trusted=server.trusted,
        env=server.env or None,
        cwd=server.cwd,
        default_effect=server.default_effect,
        effect_overrides=server.effect_overrides or None,
        timeout=server.timeout,
        max_response_bytes=server.max_response_bytes,
        relist_s=server.relist_s,
        skip_invalid_tools=server.skip_invalid_tools,
        max_tools=server.max_tools,
    )


def _saved_index(index: Any, config: GatewayConfig) -> Any:
    """The index a gateway opens: a saved folder, where the config has upstream servers,
    as an :class:`~schemarouter.index.build.IndexFolder` brought to their tools (they join,
    or fail, after the index may have opened; any other difference is still stale); a
    Milvus URI or an index object as given."""
    from schemarouter.index.backend import is_milvus_uri
    from schemarouter.index.build import IndexFolder

    if not config.mcp_servers or not isinstance(index, str | Path) or is_milvus_uri(index):
        return index
    return IndexFolder(index, sync=_upstream_ids(config))


def _upstream_ids(config: GatewayConfig) -> tuple[str, ...]:
    """The provider ids the upstreams register under (``Notes`` registers as ``notes``)."""
    from schemarouter.registry.compile import named_provider

    return tuple(
        named_provider(s.provider, where="gateway config mcp_servers").id
        for s in config.mcp_servers
    )


def _restorable(index: Any, config: GatewayConfig) -> bool:
    """Whether the router starts from the registry saved in ``index``: a saved folder, and
    no catalog, OpenAPI document, MCP listing or OPTIMADE service given (those are
    registered and checked against the index instead, as before)."""
    from schemarouter.index.backend import is_milvus_uri

    local = config.catalogs or config.openapi or config.mcp_tools or config.optimade
    return isinstance(index, str | Path) and not is_milvus_uri(str(index)) and not local


def served_index(config: GatewayConfig, router_options: dict[str, Any]) -> Any:
    """The index a gateway built by :func:`build_router` opens: the router option
    ``index`` where given, else the config's (a reload reads the same one)."""
    return router_options.get("index", config.index)


def build_router(
    config: GatewayConfig,
    *,
    servers: bool = True,
    registered: list[tuple[str, Any]] | None = None,
    failed: list[tuple[str, SchemaRouterError]] | None = None,
    **router_options: Any,
) -> Any:
    """A router with everything ``config`` lists registered, upstream MCP servers connected
    (sessions the router owns) and bound; ``router_options`` go to ``SchemaRouter``.
    ``servers=False`` leaves the upstream servers to the caller (:class:`Upstreams`).
    ``registered``, where given, receives each source with its change, and ``failed`` each
    source that could not be registered with its error, the others registered (see
    :func:`register_sources`). ``progress=True`` (the router's own option) also shows the
    sources registered. With the config's ``skip_invalid``, a source that cannot be
    registered is left out with a warning in the log (where ``failed`` is not given)."""
    from schemarouter.router import SchemaRouter

    if not config.search.rerank:
        router_options.setdefault("reranker", None)
    for key, value in config.models.options().items():  # a flag (router_options) wins
        router_options.setdefault(key, value)
    index = served_index(config, router_options)
    if index:
        router_options["index"] = _saved_index(index, config)
    router = SchemaRouter(**router_options)
    skipped: list[tuple[str, SchemaRouterError]] = []
    try:
        if _restorable(index, config):  # the index folder alone: its saved registry
            # the upstream servers' tools are registered (and bound) when they connect
            change = router.restore_registry(Path(str(index)), leave_out=_upstream_ids(config))
            if registered is not None:
                registered.append((str(index), change))
        changes = register_sources(
            router,
            catalogs=config.catalogs,
            openapi=config.openapi,
            mcp_tools=config.mcp_tools,
            optimade=config.optimade,
            failed=failed if failed is not None or not config.skip_invalid else skipped,
            progress=bool(router_options.get("progress")),
        )
        for source, error in skipped:  # a URL's key or password never in the log (trial V3)
            shown = shown_command(str(source))
            logger.warning("skip_invalid: %s left out: %s", shown, " ".join(str(error).split()))
        if registered is not None:
            registered.extend(changes)
        for server in config.mcp_servers if servers else ():
            connect_server(router, server)
    except BaseException:
        router.close()
        raise
    if not len(router.snapshot()) and not failed and (servers or not config.mcp_servers):
        router.close()
        raise DocumentError(
            "the gateway registers no route",
            where="gateway config",
            hint="List catalogs, openapi documents, mcp_tools, optimade services or mcp_servers"
            " (to serve Python functions alone, register them on a router and serve "
            "Gateway(router, config))",
        )
    return router
