"""The public API is declared in one place and changes only on purpose."""

from __future__ import annotations

import subprocess
import sys

import schemarouter

EXPECTED = [
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


def test_all_is_pinned_and_sorted() -> None:
    assert schemarouter.__all__ == EXPECTED
    assert schemarouter.__all__ == sorted(schemarouter.__all__)
    for name in schemarouter.__all__:
        assert getattr(schemarouter, name) is not None


HEAVY = (
    *("torch", "transformers", "sentence_transformers", "faiss", "onnxruntime", "sklearn"),
    *("pymilvus", "milvus_lite", "grpc"),
)


def test_import_loads_no_heavy_library() -> None:
    code = (
        "import sys, schemarouter, schemarouter.index, schemarouter.cli;"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
