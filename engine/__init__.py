"""SchemaRouter: retrieve, validate and execute only registered capabilities."""

from schemarouter._version import __version__
from schemarouter.adapters.python import capability
from schemarouter.catalog import load_catalog
from schemarouter.contracts import (
    AccessKind,
    AccessPath,
    AuthRequirement,
    Availability,
    Effect,
    Endpoint,
    Operation,
    OutputField,
    Parameter,
    ParameterLocation,
    Provider,
    Registration,
    Route,
    SourceType,
    UnitNormalizationSpec,
)
from schemarouter.errors import SchemaRouterError
from schemarouter.registry import Registry, RegistrySnapshot
from schemarouter.router import SchemaRouter

__all__ = [
    "AccessKind",
    "AccessPath",
    "AuthRequirement",
    "Availability",
    "Effect",
    "Endpoint",
    "Operation",
    "OutputField",
    "Parameter",
    "ParameterLocation",
    "Provider",
    "Registration",
    "Registry",
    "RegistrySnapshot",
    "Route",
    "SchemaRouter",
    "SchemaRouterError",
    "SourceType",
    "UnitNormalizationSpec",
    "__version__",
    "capability",
    "load_catalog",
]
