"""Loopback stand-ins for the Anthropic Messages API and the OpenAI Responses API.

The real SDK clients talk to these over HTTP (``base_url``), so everything the SDKs do with
our tool definitions and results (their types, their serialization) runs for real; only the
model is scripted, since no model can run here. Each server records the request bodies it
received and plays a client-side tool-search conversation:

1. the first turn calls the search tool with the user's words;
2. a search answer (Anthropic: ``tool_reference`` blocks; OpenAI: a ``tool_search_output``
   of function definitions) makes it call the first tool found with ``arguments``; a
   reference to a tool not sent with ``defer_loading`` is refused as the real API does;
3. a tool result makes it answer in text, quoting the result.

Offered an MCP gateway's tools as plain functions (``search_tools`` / ``call_tool``, as the
OpenAI Agents SDK does with an MCP server) instead of a ``tool_search`` tool, the OpenAI
stand-in plays the same conversation through them: ``search_tools``, then ``call_tool`` on
the first tool found, then a text answer.
"""

from __future__ import annotations

import json
import re
from typing import Any

from servers.loopback import Request, Response, json_response


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    return " ".join(b.get("text", "") for b in content if isinstance(b, dict))


class FakeAnthropic:
    """``POST /v1/messages`` (see the module docstring)."""

    def __init__(self, arguments: dict[str, Any] | None = None) -> None:
        self.arguments = arguments if arguments is not None else {"city": "Paris"}
        self.bodies: list[dict[str, Any]] = []

    def _reply(self, content: list[dict[str, Any]], stop: str) -> Response:
        return json_response(
            {
                "id": f"msg_{len(self.bodies)}",
                "type": "message",
                "role": "assistant",
                "model": "claude-test",
                "content": content,
                "stop_reason": stop,
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 5},
            }
        )

    def __call__(self, request: Request) -> Response:
        if request.method != "POST" or request.path != "/v1/messages":
            return json_response({"type": "error", "error": {"type": "not_found_error"}}, 404)
        body = json.loads(request.body)
        self.bodies.append(body)
        tools = body.get("tools", [])
        last = body["messages"][-1]
        results = (
            [b for b in last["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]
            if isinstance(last["content"], list)
            else []
        )
        if not results:
            search = next(t for t in tools if not t.get("defer_loading"))
            query = _text_of(last["content"])
            use = {
                "type": "tool_use",
                "id": "toolu_search",
                "name": search["name"],
                "input": {"query": query, "k": 3},
            }
            return self._reply([use], "tool_use")
        content = results[0].get("content")
        if isinstance(content, list) and any(b.get("type") == "tool_reference" for b in content):
            name = next(b["tool_name"] for b in content if b.get("type") == "tool_reference")
            deferred = {t["name"] for t in tools if t.get("defer_loading")}
            if name not in deferred:
                error = {
                    "type": "invalid_request_error",
                    "message": f"tool_reference {name!r} names no deferred tool",
                }
                return json_response({"type": "error", "error": error}, 400)
            use = {"type": "tool_use", "id": "toolu_call", "name": name, "input": self.arguments}
            return self._reply([use], "tool_use")
        return self._reply(
            [{"type": "text", "text": f"Result: {_text_of(content)[:300]}"}], "end_turn"
        )


class FakeOpenAI:
    """``POST /v1/responses`` (see the module docstring)."""

    def __init__(self, arguments: dict[str, Any] | None = None) -> None:
        self.arguments = arguments if arguments is not None else {"city": "Paris"}
        self.bodies: list[dict[str, Any]] = []

    def _reply(self, output: list[dict[str, Any]]) -> Response:
        return json_response(
            {
                "id": f"resp_{len(self.bodies)}",
                "object": "response",
                "created_at": 0,
                "model": "gpt-test",
                "status": "completed",
                "output": output,
                "parallel_tool_calls": True,
                "tool_choice": "auto",
                "tools": [],
            }
        )

    def __call__(self, request: Request) -> Response:
        if request.method != "POST" or request.path != "/v1/responses":
            return json_response({"error": {"message": "not found"}}, 404)
        body = json.loads(request.body)
        self.bodies.append(body)
        items = (
            body["input"]
            if isinstance(body["input"], list)
            else [{"role": "user", "content": body["input"]}]
        )
        # a developer note after a tool search output (what it left out) is read, not answered
        last = next((i for i in reversed(items) if i.get("role") != "developer"), items[-1])
        kind = last.get("type", "message")
        functions = {t.get("name") for t in body.get("tools", []) if t.get("type") == "function"}
        if {"search_tools", "call_tool"} <= functions:
            return self._gateway(last, kind)
        if kind == "message" or "role" in last:
            assert any(
                t.get("type") == "tool_search" and t.get("execution") == "client"
                for t in body.get("tools", [])
            ), "no client tool_search tool offered"
            call = {
                "type": "tool_search_call",
                "id": "ts_1",
                "call_id": "call_search",
                "arguments": {"query": _text_of(last.get("content", "")), "k": 3},
                "execution": "client",
                "status": "completed",
            }
            return self._reply([call])
        if kind == "tool_search_output":
            functions = [t for t in last["tools"] if t.get("type") == "function"]
            call = {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_tool",
                "name": functions[0]["name"],
                "arguments": json.dumps(self.arguments),
                "status": "completed",
            }
            return self._reply([call])
        return self._text(f"Result: {str(last.get('output', ''))[:300]}")

    def _text(self, text: str) -> Response:
        content = [{"type": "output_text", "text": text, "annotations": []}]
        message = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed"}
        return self._reply([{**message, "content": content}])

    def _gateway(self, last: dict[str, Any], kind: str) -> Response:
        """The conversation through an MCP gateway's search_tools / call_tool functions."""
        if kind == "function_call_output":
            output = str(last.get("output", ""))
            if last.get("call_id") == "call_search":
                found = _NAMES.search(output)
                assert found, f"no tool in the search answer: {output[:300]}"
                arguments = {"name": found.group(1), "arguments": self.arguments}
                call = {
                    "type": "function_call",
                    "id": "fc_2",
                    "call_id": "call_tool",
                    "name": "call_tool",
                    "arguments": json.dumps(arguments),
                    "status": "completed",
                }
                return self._reply([call])
            return self._text(f"Result: {output[:300]}")
        query = _text_of(last.get("content", ""))
        call = {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_search",
            "name": "search_tools",
            "arguments": json.dumps({"query": query, "k": 3}),
            "status": "completed",
        }
        return self._reply([call])


#: A tool name in a gateway's search answer (``provider__access__endpoint``).
_NAMES = re.compile(r'"name":\s*"([A-Za-z0-9_-]+__[A-Za-z0-9_-]+)"')
