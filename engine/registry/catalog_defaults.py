"""What a catalog endpoint that leaves a key out is read as, where the contract's own
default would be wrong for it (trial A).

- ``input_schema`` left out: the schema its ``parameters`` make. The contract's default,
  ``{"type": "object"}``, offered a model no parameter at all (``properties: {}``), though
  calls were checked against the parameters.
- ``effect`` left out: its HTTP method's, as an OpenAPI operation's (GET and HEAD read,
  DELETE destroys, the rest write). The contract's default, ``read``, let a ``DELETE``
  written without ``effect:`` run from a plan or ``router.call`` with no approval. An
  ``effect`` the catalog writes is kept (a ``POST`` query that only reads says ``read``).
  An MCP ``tool`` operation without ``effect:`` is a write, as an untrusted server's tool is
  (trial X4: a catalog's ``delete_structure`` tool ran from ``router.call`` as a read).
"""

from __future__ import annotations

from typing import Any

from schemarouter.contracts import Effect, Endpoint
from schemarouter.errors import SchemaRouterError
from schemarouter.registry.compile import check_json_schema

__all__ = ["with_defaults"]


def with_defaults(endpoint: Endpoint) -> Endpoint:
    """``endpoint`` with the input schema and effect it leaves out read as above."""
    update: dict[str, Any] = {}
    schema = _parameters_schema(endpoint)
    if schema is not None:
        update["input_schema"] = schema
    effect = _method_effect(endpoint)
    if effect is not None:
        update["effect"] = effect
    return endpoint.model_copy(update=update) if update else endpoint


def _parameters_schema(endpoint: Endpoint) -> dict[str, Any] | None:
    """Each parameter a property of its own schema, the required ones required, no other
    key; ``None`` where the catalog writes ``input_schema``, there are no parameters, or a
    parameter's schema is invalid (refused at the parameter, where the author wrote it)."""
    if "input_schema" in endpoint.model_fields_set or not endpoint.parameters:
        return None
    for parameter in endpoint.parameters:
        try:
            check_json_schema(parameter.json_schema, where="")
        except SchemaRouterError:
            return None
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {p.name: p.json_schema for p in endpoint.parameters},
        "additionalProperties": False,
    }
    required = [p.name for p in endpoint.parameters if p.required]
    if required:
        schema["required"] = required
    return schema


def _method_effect(endpoint: Endpoint) -> Effect | None:
    """The effect of the endpoint's HTTP method (or MCP tool), where the catalog writes none."""
    method = (endpoint.operation.method or "").lower()
    if "effect" in endpoint.model_fields_set:
        return None
    if not method:
        return Effect.WRITE if endpoint.operation.tool else None
    if method in ("get", "head"):
        return None
    return Effect.DESTRUCTIVE if method == "delete" else Effect.WRITE
