"""A small real MCP server of a code host's issues, shaped as GitHub's (stdio).

Run: ``python issues_server.py``. Each tool call is appended to the file ``$ISSUES_LOG``
names, as one JSON line ``{"tool": ..., "arguments": {...}}`` (the arguments the tool
received, defaults included), so a test reads what the server was sent. ``update_issue``
takes the issue's address (``owner``, ``repo``, ``issue_number``) and what it changes
(``title``, ``body``, ``state``, all optional: an update with only the address changes
nothing); ``get_issue`` and ``list_issues`` read.
"""

from __future__ import annotations

import json
import os
from typing import Literal

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import BaseModel

server = MCPServer("issues")
READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)


class Issue(BaseModel):
    number: int
    title: str
    state: str


class Issues(BaseModel):
    issues: list[Issue]


def _log(tool: str, **arguments: object) -> None:
    with open(os.environ["ISSUES_LOG"], "a", encoding="utf-8") as f:
        f.write(json.dumps({"tool": tool, "arguments": arguments}) + "\n")


@server.tool(title="List issues", annotations=READ)
def list_issues(owner: str, repo: str) -> Issues:
    """List the issues of a repository."""
    _log("list_issues", owner=owner, repo=repo)
    return Issues(issues=[Issue(number=5, title="Crash", state="open")])


@server.tool(title="Get an issue", annotations=READ)
def get_issue(owner: str, repo: str, issue_number: int) -> Issue:
    """One issue of a repository by its number."""
    _log("get_issue", owner=owner, repo=repo, issue_number=issue_number)
    return Issue(number=issue_number, title="Crash", state="open")


@server.tool(title="Update an issue", annotations=WRITE)
def update_issue(
    owner: str,
    repo: str,
    issue_number: int,
    title: str | None = None,
    body: str | None = None,
    state: Literal["open", "closed"] | None = None,
) -> Issue:
    """Update an issue: its title, body or state."""
    _log(
        "update_issue",
        owner=owner,
        repo=repo,
        issue_number=issue_number,
        title=title,
        body=body,
        state=state,
    )
    return Issue(number=issue_number, title=title or "Crash", state=state or "open")


if __name__ == "__main__":
    server.run()
