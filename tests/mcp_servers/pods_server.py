"""A small real MCP server of a cluster's pods and their logs (stdio), as an on-call team's.

Run: ``python pods_server.py``. Each tool call is appended to the file ``$PODS_LOG`` names,
as one JSON line ``{"tool": ..., "arguments": {...}}`` (the arguments the tool received,
defaults included). Its settings are named as such servers name them, for what they do, not
for what a request writes: ``tail`` is "Number of lines from the end", ``list_pods``'
``deployment`` keeps "Only the pods of this deployment".
"""

from __future__ import annotations

import json
import os
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

server = MCPServer("pods")
READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
Namespace = Annotated[str, Field(description="Kubernetes namespace, e.g. prod, staging, dev")]
Pod = Annotated[str, Field(description="Pod name, e.g. api-7")]


class PodInfo(BaseModel):
    name: str
    deployment: str
    status: str


class Result(BaseModel):
    ok: bool
    message: str


def _log(tool: str, **arguments: object) -> None:
    with open(os.environ["PODS_LOG"], "a", encoding="utf-8") as f:
        f.write(json.dumps({"tool": tool, "arguments": arguments}) + "\n")


@server.tool(title="List pods", annotations=READ)
def list_pods(
    namespace: Namespace = "prod",
    deployment: Annotated[str | None, Field(description="Only the pods of this deployment")] = None,
) -> list[PodInfo]:
    """List pods with their status and restart counts."""
    _log("list_pods", namespace=namespace, deployment=deployment)
    return [PodInfo(name="api-7", deployment=deployment or "api", status="Running")]


@server.tool(title="Get pod logs", annotations=READ)
def get_pod_logs(
    pod: Pod,
    since_minutes: Annotated[int, Field(description="Only lines from the last N minutes")] = 60,
    tail: Annotated[int, Field(description="Number of lines from the end", ge=1)] = 100,
    namespace: Namespace = "prod",
) -> list[str]:
    """Fetch a pod's container logs."""
    _log("get_pod_logs", pod=pod, since_minutes=since_minutes, tail=tail, namespace=namespace)
    return [f"{pod}: panic: nil pointer dereference"]


@server.tool(title="Scale a deployment", annotations=WRITE)
def scale_deployment(
    name: Annotated[str, Field(description="Deployment name")],
    replicas: Annotated[int, Field(description="Desired number of replicas", ge=0)],
    namespace: Namespace = "prod",
) -> Result:
    """Set the number of replicas of a deployment."""
    _log("scale_deployment", name=name, replicas=replicas, namespace=namespace)
    return Result(ok=True, message=f"{name} at {replicas}")


if __name__ == "__main__":
    server.run()
