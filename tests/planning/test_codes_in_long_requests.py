"""A bare code's words before it are read near it (the twentieth security review):
``key_codes`` searched the whole text before each code for the word right before it, so
100,000 characters of "PED-0107 " took 12.3 s of CPU (time in the square of the text). The
bound catches the blow-up only: the reading now takes a tenth of a second or so."""

from __future__ import annotations

import time

from forking import in_child
from pydantic import BaseModel

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder
from schemarouter.planning.key_codes import key_code
from schemarouter.planning.named_values import Clauses


class Item(BaseModel):
    """A stock item."""

    sku: str
    bin: str


def get_item(sku: str) -> Item:
    """Read one inventory item."""
    return Item(sku=sku, bin="A-1")


def test_a_long_request_of_codes_is_read_in_time() -> None:
    router = SchemaRouter(encoder=HashingEncoder(), embedding_cache=None, abstention=None)
    router.add_callable([get_item], provider="shop")
    (route,) = router.registry.snapshot().routes.values()
    key = [p for p in route.endpoint.parameters if p.name == "sku"]
    text = "PED-0107 " * 11_112

    def job() -> tuple[float, object]:
        start = time.process_time()
        found = key_code(route, key, text, {}, Clauses(text))
        return time.process_time() - start, found

    status, answer = in_child(job, wait=120)
    assert status == "ok" and isinstance(answer, tuple)
    spent, found = answer
    assert found is None  # many codes: which is not said
    assert spent < 5.0
    asked = "what is in PED-0107?"
    assert key_code(route, key, asked, {}, Clauses(asked)) == ("sku", "PED-0107")
