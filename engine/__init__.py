"""SchemaRouter: retrieve, validate and execute only registered capabilities."""

from schemarouter._version import __version__
from schemarouter.adapters.inspect import ContractProposal
from schemarouter.adapters.profiles import ProviderProfile, ProviderResolution
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
from schemarouter.credentials import (
    CredentialProvider,
    EnvironmentCredentials,
    MappingCredentials,
)
from schemarouter.diff import SchemaDiff
from schemarouter.errors import SchemaRouterError
from schemarouter.gate import (
    GateReport,
    validate_selection,
)
from schemarouter.llm import OpenAICompatibleAnalyzer
from schemarouter.planner import (
    Coverage,
    Plan,
    PlanRequest,
    PlanStep,
)
from schemarouter.policy import (
    Budget,
    ExecutionPolicy,
)
from schemarouter.query import (
    Analyzer,
    QueryAnalysis,
    RuleAnalyzer,
)
from schemarouter.registry import (
    Registry,
    RegistrySnapshot,
)
from schemarouter.rerank import Reranker
from schemarouter.results import (
    Candidate,
    CandidateField,
    CapabilityRetrieval,
)
from schemarouter.results_exec import (
    CallResult,
    ExecutionResult,
    FieldValue,
    StepResult,
)
from schemarouter.router import SchemaRouter
from schemarouter.state import (
    Exclusion,
    ExecutionState,
)

__all__ = [
    "AccessKind",
    "AccessPath",
    "Analyzer",
    "AuthRequirement",
    "Availability",
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
    "capability",
    "load_catalog",
    "validate_selection",
]
