"""Every loopback server the execution tests use, and a fresh router over them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schemarouter import SchemaRouter
from schemarouter.execution.credentials import MappingCredentials
from schemarouter.index import HashingEncoder

from servers import catalogs
from servers.faulty import FaultyApp
from servers.loopback import LoopbackServer
from servers.materials import materials_project_app, optimade_app, pubchem_app

#: The Materials Project key the MP-like server accepts (a test value, never a real key).
MP_KEY = "sk-test-7f3a9c0e5b1d"
#: Credentials that open the MP-like server.
CREDS = MappingCredentials({"MP_API_KEY": MP_KEY})
#: Route ids of the servers shaped like the bundled providers.
MP = "materials_project/rest/summary_search"
OPTIMADE = "optimade/v1/structures"
PUBCHEM = "pubchem/pug_rest/compound_properties_by_name"


@dataclass
class Servers:
    mp: LoopbackServer
    optimade: LoopbackServer
    pubchem: LoopbackServer
    faulty: LoopbackServer
    elsewhere: LoopbackServer

    def all(self) -> list[LoopbackServer]:
        return [self.mp, self.optimade, self.pubchem, self.faulty, self.elsewhere]

    def reset(self) -> None:
        for server in self.all():
            server.reset()
        app = self.faulty.app
        if isinstance(app, FaultyApp):
            app.reset()

    def providers(self) -> list[dict[str, Any]]:
        return [
            catalogs.materials_project(self.mp.base_url),
            catalogs.optimade(self.optimade.base_url),
            catalogs.pubchem(self.pubchem.base_url),
            catalogs.faulty(self.faulty.base_url),
            catalogs.keyed(self.faulty.base_url + "/"),
        ]


@contextmanager
def running_servers() -> Iterator[Servers]:
    with ExitStack() as stack:
        elsewhere = stack.enter_context(LoopbackServer(catalogs_elsewhere_app))
        servers = Servers(
            mp=stack.enter_context(LoopbackServer(materials_project_app(MP_KEY))),
            optimade=stack.enter_context(LoopbackServer(optimade_app)),
            pubchem=stack.enter_context(LoopbackServer(pubchem_app)),
            faulty=stack.enter_context(LoopbackServer(FaultyApp(elsewhere.base_url))),
            elsewhere=elsewhere,
        )
        yield servers


def catalogs_elsewhere_app(request: Any) -> Any:
    """Another origin: any request reaching it is a failure of the redirect policy."""
    from servers.loopback import json_response

    return json_response({"data": [{"material_id": "stolen", "band_gap": 9.9}]})


def fresh_router(
    servers: Servers, tmp_path: Path, providers: list[dict[str, Any]] | None = None
) -> SchemaRouter:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    catalogs.register(router, tmp_path / "catalog.json", providers or servers.providers())
    return router
