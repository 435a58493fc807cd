"""SchemaRouter: retrieve, validate and execute only registered capabilities."""

import logging as _logging

from schemarouter._version import __version__
from schemarouter.adapters.inspect import ContractProposal
from schemarouter.adapters.profiles import ProviderProfile, ProviderResolution
from schemarouter.adapters.python import capability
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
from schemarouter.execution.credentials import (
    CredentialProvider,
    EnvironmentCredentials,
    MappingCredentials,
)
from schemarouter.execution.policy import (
    ApprovalArguments,
    BoundArgument,
    Budget,
    ExecutionPolicy,
)
from schemarouter.execution.results import (
    CallResult,
    ExecutionResult,
    FieldValue,
    StepResult,
)
from schemarouter.planning.planner import (
    Coverage,
    Plan,
    PlanRequest,
    PlanStep,
)
from schemarouter.registry.catalog import bundled_catalog, load_catalog
from schemarouter.registry.diff import SchemaDiff
from schemarouter.registry.registry import (
    Registry,
    RegistrySnapshot,
)
from schemarouter.retrieval.analysis import (
    Analyzer,
    QueryAnalysis,
    RuleAnalyzer,
)
from schemarouter.retrieval.gate import (
    GateReport,
    validate_selection,
)
from schemarouter.retrieval.learned import RankingModel
from schemarouter.retrieval.llm_analyzer import OpenAICompatibleAnalyzer
from schemarouter.retrieval.rerank import Reranker
from schemarouter.retrieval.results import (
    Candidate,
    CandidateField,
    CapabilityRetrieval,
)
from schemarouter.retrieval.state import (
    Exclusion,
    ExecutionState,
)
from schemarouter.router import SchemaRouter

# The library logs, never prints: without this, a warning record reaching no handler would
# be printed to stderr by logging's last resort. Configure logging to see the records.
_logging.getLogger(__name__).addHandler(_logging.NullHandler())

__all__ = [
    "AccessKind",
    "AccessPath",
    "Analyzer",
    "ApprovalArguments",
    "AuthRequirement",
    "Availability",
    "BoundArgument",
    "Budget",
    "CallResult",
    "Candidate",
    "CandidateField",
    "CapabilityRetrieval",
    "ContractProposal",
    "Coverage",
    "CredentialProvider",
    "Effect",
    "Endpoint",
    "EnvironmentCredentials",
    "Exclusion",
    "ExecutionPolicy",
    "ExecutionResult",
    "ExecutionState",
    "FieldValue",
    "GateReport",
    "MappingCredentials",
    "OpenAICompatibleAnalyzer",
    "Operation",
    "OutputField",
    "Parameter",
    "ParameterLocation",
    "Plan",
    "PlanRequest",
    "PlanStep",
    "Provider",
    "ProviderProfile",
    "ProviderResolution",
    "QueryAnalysis",
    "RankingModel",
    "Registration",
    "Registry",
    "RegistrySnapshot",
    "Reranker",
    "Route",
    "RuleAnalyzer",
    "SchemaDiff",
    "SchemaRouter",
    "SchemaRouterError",
    "SourceType",
    "StepResult",
    "UnitNormalizationSpec",
    "__version__",
    "bundled_catalog",
    "capability",
    "load_catalog",
    "validate_selection",
]
