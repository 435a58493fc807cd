"""A small real MCP server of an on-call team's deployments, pods and incidents (stdio).

Run: ``python deploys_server.py``. Each tool call is appended to the file ``$DEPLOYS_LOG``
names, as one JSON line ``{"tool": ..., "arguments": {...}}`` (the arguments the tool
received, defaults included), so a test reads what the server was sent. Most tools take a
``namespace`` that defaults to ``prod``, its description listing the others, as a
Kubernetes server's do; ``delete_pod`` takes a ``force`` flag and ``deploy`` a ``dry_run``
one that is on unless turned off.
"""

from __future__ import annotations

import json
import os
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

server = MCPServer("deploys")
READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
DESTROY = ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)
Namespace = Annotated[str, Field(description="Kubernetes namespace, e.g. prod, staging, dev")]
Pod = Annotated[str, Field(description="Pod name, e.g. api-7")]
Deployment = Annotated[str, Field(description="Deployment name")]
IncidentId = Annotated[str, Field(description="Incident id, e.g. INC-4", pattern=r"^INC-\d+$")]


class Result(BaseModel):
    ok: bool
    message: str


class PodInfo(BaseModel):
    name: str
    status: str


def _log(tool: str, **arguments: object) -> None:
    with open(os.environ["DEPLOYS_LOG"], "a", encoding="utf-8") as f:
        f.write(json.dumps({"tool": tool, "arguments": arguments}) + "\n")


@server.tool(title="List pods", annotations=READ)
def list_pods(namespace: Namespace = "prod") -> list[PodInfo]:
    """List the pods of a namespace."""
    _log("list_pods", namespace=namespace)
    return [PodInfo(name="api-7", status="Running")]


@server.tool(title="Describe a pod", annotations=READ)
def describe_pod(pod: Pod, namespace: Namespace = "prod") -> PodInfo:
    """Pod status, restart count and last termination reason (CrashLoopBackOff, OOMKilled)."""
    _log("describe_pod", pod=pod, namespace=namespace)
    return PodInfo(name=pod, status="CrashLoopBackOff")


@server.tool(title="Get a deployment", annotations=READ)
def get_deployment(name: Deployment, namespace: Namespace = "prod") -> Result:
    """Show one deployment: replicas, image version and current revision."""
    _log("get_deployment", name=name, namespace=namespace)
    return Result(ok=True, message=f"{name}: 3 replicas")


@server.tool(title="Scale a deployment", annotations=WRITE)
def scale_deployment(
    name: Deployment,
    replicas: Annotated[int, Field(description="Desired number of replicas", ge=0)],
    namespace: Namespace = "prod",
) -> Result:
    """Set the number of replicas of a deployment."""
    _log("scale_deployment", name=name, replicas=replicas, namespace=namespace)
    return Result(ok=True, message=f"{name} at {replicas}")


@server.tool(title="Restart a pod", annotations=DESTROY)
def restart_pod(pod: Pod, namespace: Namespace = "prod") -> Result:
    """Restart a pod by deleting it so its deployment recreates it."""
    _log("restart_pod", pod=pod, namespace=namespace)
    return Result(ok=True, message=f"{pod} restarted")


@server.tool(title="Delete a pod", annotations=DESTROY)
def delete_pod(
    pod: Pod,
    namespace: Namespace = "prod",
    force: Annotated[bool, Field(description="Skip the grace period")] = False,
) -> Result:
    """Delete a pod (force skips the grace period)."""
    _log("delete_pod", pod=pod, namespace=namespace, force=force)
    return Result(ok=True, message=f"{pod} deleted")


@server.tool(title="Roll back a deployment", annotations=WRITE)
def rollback_deployment(
    name: Deployment,
    revision: Annotated[int, Field(description="Revision to roll back to")],
    namespace: Namespace = "prod",
) -> Result:
    """Roll a deployment back to an earlier revision."""
    _log("rollback_deployment", name=name, revision=revision, namespace=namespace)
    return Result(ok=True, message=f"{name} rolled back to {revision}")


@server.tool(title="Resolve an incident", annotations=WRITE)
def resolve_incident(
    id: IncidentId,
    note: Annotated[str | None, Field(description="Resolution note")] = None,
) -> Result:
    """Resolve an incident with a resolution note."""
    _log("resolve_incident", id=id, note=note)
    return Result(ok=True, message=f"{id} resolved")


@server.tool(title="Silence an alert", annotations=WRITE)
def silence_alert(
    alert_id: Annotated[str, Field(description="Alert id, e.g. A-9", pattern=r"^A-\d+$")],
    duration_minutes: Annotated[int, Field(description="How long, in minutes", ge=1)],
) -> Result:
    """Silence (mute) an alert for a number of minutes."""
    _log("silence_alert", alert_id=alert_id, duration_minutes=duration_minutes)
    return Result(ok=True, message=f"{alert_id} silenced")


@server.tool(title="Deploy", annotations=WRITE)
def deploy(
    service: Annotated[str, Field(description="Service to deploy")],
    version: Annotated[str, Field(description="Version tag, e.g. v2.3.1")],
    dry_run: Annotated[bool, Field(description="Only show what would change")] = True,
    namespace: Namespace = "prod",
) -> Result:
    """Deploy a version of a service. Dry run by default."""
    _log("deploy", service=service, version=version, dry_run=dry_run, namespace=namespace)
    return Result(ok=True, message=f"{service} {version}")


if __name__ == "__main__":
    server.run()
