"""Renderings of a retrieval for LLM APIs and agent frameworks.

Pure functions of a result (they never reach the network): tool definitions in the
Anthropic, OpenAI and MCP shapes with names every API accepts and the map back to route ids
(:mod:`.definitions`, :mod:`.names`), client-side tool search for both APIs and the tool
results they take back (:mod:`.search`), worded for the model (:mod:`.wording`, which the
MCP gateway uses too). Framework hooks live beside them and import their
framework only when used: :mod:`.langgraph` (langgraph-bigtool, extra ``langgraph``) and
:mod:`.llamaindex` (a LlamaIndex ``ObjectRetriever``, extra ``llamaindex``).
"""

from schemarouter.integrations.definitions import (
    ToolFormat,
    ToolSet,
    describe,
    prune_schema,
    tool_definition,
    tool_definitions,
    tool_input_schema,
)
from schemarouter.integrations.names import (
    MAX_TOOL_NAME,
    PROPERTY_KEY_PATTERN,
    TOOL_NAME_PATTERN,
    property_keys,
    route_for_tool,
    tool_name,
    tool_names,
)
from schemarouter.integrations.search import (
    acall_tool,
    anthropic_search_result,
    anthropic_search_tool,
    anthropic_tool_references,
    anthropic_tool_result,
    call_payload,
    call_tool,
    deferred_tools,
    openai_function_call_output,
    openai_tool_search_items,
    openai_tool_search_output,
    openai_tool_search_tool,
    search_note,
    search_state,
)
from schemarouter.integrations.wording import agent_error

__all__ = [
    "MAX_TOOL_NAME",
    "PROPERTY_KEY_PATTERN",
    "TOOL_NAME_PATTERN",
    "ToolFormat",
    "ToolSet",
    "acall_tool",
    "agent_error",
    "anthropic_search_result",
    "anthropic_search_tool",
    "anthropic_tool_references",
    "anthropic_tool_result",
    "call_payload",
    "call_tool",
    "deferred_tools",
    "describe",
    "openai_function_call_output",
    "openai_tool_search_items",
    "openai_tool_search_output",
    "openai_tool_search_tool",
    "property_keys",
    "prune_schema",
    "route_for_tool",
    "search_note",
    "search_state",
    "tool_definition",
    "tool_definitions",
    "tool_input_schema",
    "tool_name",
    "tool_names",
]
