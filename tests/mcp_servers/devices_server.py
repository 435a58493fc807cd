"""A small real MCP server of a home's devices, for the tests of what a change sends (stdio).

Run: ``python devices_server.py``. Each tool call is appended to the file ``$DEVICES_LOG``
names, as one JSON line ``{"tool": ..., "arguments": {...}}`` (the arguments the tool
received, defaults included), so a test reads what the server was sent. ``update_device``
changes a device's name or room (both optional: an update with only the id changes
nothing); ``remove_device``, ``lock_door`` and ``update_firmware`` are actions on a device
named by its id alone (``update_firmware`` installs the latest version unless one is
given); ``delete_room`` deletes a room.
"""

from __future__ import annotations

import json
import os
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

server = MCPServer("devices")
READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
DESTROY = ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)
DeviceId = Annotated[str, Field(description="Device id, e.g. D-101", pattern=r"^D-\d+$")]
RoomId = Annotated[str, Field(description="Room id, e.g. RM-1", pattern=r"^RM-\d+$")]


class Result(BaseModel):
    ok: bool
    message: str


class Device(BaseModel):
    id: str
    name: str
    room_id: str


def _log(tool: str, **arguments: object) -> None:
    with open(os.environ["DEVICES_LOG"], "a", encoding="utf-8") as f:
        f.write(json.dumps({"tool": tool, "arguments": arguments}) + "\n")


@server.tool(title="Get a device", annotations=READ)
def get_device(device_id: DeviceId) -> Device:
    """One device of the home by its id: its name and room."""
    _log("get_device", device_id=device_id)
    return Device(id=device_id, name="Lamp", room_id="RM-1")


@server.tool(title="Update a device", annotations=WRITE)
def update_device(
    device_id: DeviceId,
    name: Annotated[str | None, Field(description="New display name")] = None,
    room_id: Annotated[str | None, Field(description="Move the device to this room")] = None,
) -> Device:
    """Rename a device or move it to another room."""
    _log("update_device", device_id=device_id, name=name, room_id=room_id)
    return Device(id=device_id, name=name or "Lamp", room_id=room_id or "RM-1")


@server.tool(title="Remove a device", annotations=DESTROY)
def remove_device(device_id: DeviceId) -> Result:
    """Remove (unregister) a device from the household for good."""
    _log("remove_device", device_id=device_id)
    return Result(ok=True, message=f"{device_id} removed")


@server.tool(title="Delete a room", annotations=DESTROY)
def delete_room(room_id: RoomId) -> Result:
    """Delete a room of the home."""
    _log("delete_room", room_id=room_id)
    return Result(ok=True, message=f"{room_id} deleted")


@server.tool(title="Lock a door", annotations=WRITE)
def lock_door(device_id: DeviceId) -> Result:
    """Lock a smart door lock."""
    _log("lock_door", device_id=device_id)
    return Result(ok=True, message=f"{device_id} locked")


@server.tool(title="Update firmware", annotations=WRITE)
def update_firmware(
    device_id: DeviceId,
    version: Annotated[
        str | None, Field(description="Firmware version; latest when left out")
    ] = None,
) -> Result:
    """Install a firmware update on a device (the latest version unless one is given)."""
    _log("update_firmware", device_id=device_id, version=version)
    return Result(ok=True, message=f"{device_id} updating")


if __name__ == "__main__":
    server.run()
