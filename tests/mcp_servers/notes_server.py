"""A small real MCP server for the gateway and session tests (stdio by default).

Run: ``python notes_server.py`` (stdio) or ``python notes_server.py http PORT`` (streamable
HTTP on 127.0.0.1). A notebook of research notes: ``search_notes`` and ``get_note`` claim to
be read-only (structured output), ``add_note`` carries no annotations at all, and
``delete_note`` claims to be destructive. ``server_pid`` tells which process answered, and
``crash`` ends the process mid-call (to test sessions that reconnect).
"""

from __future__ import annotations

import os
import sys

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field


class Note(BaseModel):
    id: int
    title: str
    text: str
    tags: list[str] = Field(default_factory=list)


class Notes(BaseModel):
    notes: list[Note]
    total: int


NOTES = [
    Note(
        id=1,
        title="Perovskite stability",
        text="CsPbI3 degrades above 60% humidity.",
        tags=["solar"],
    ),
    Note(
        id=2,
        title="GaN band gap",
        text="GaN has a direct band gap near 3.4 eV.",
        tags=["semiconductor"],
    ),
    Note(id=3, title="Battery cathodes", text="LiFePO4 cycles well at low cost.", tags=["battery"]),
]

server = MCPServer("notes")
READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)


@server.tool(title="Search research notes", annotations=READ)
def search_notes(query: str, limit: int = 5) -> Notes:
    """Full-text search over the lab's research notes."""
    words = query.lower().split()
    found = [n for n in NOTES if any(w in (n.title + " " + n.text).lower() for w in words)]
    return Notes(notes=found[:limit], total=len(found))


@server.tool(title="Read one note", annotations=READ)
def get_note(note_id: int) -> Note:
    """One research note by its id."""
    for note in NOTES:
        if note.id == note_id:
            return note
    raise ValueError(f"no note {note_id}")


@server.tool()
def add_note(title: str, text: str) -> Note:
    """Add a research note to the notebook."""
    note = Note(id=len(NOTES) + 1, title=title, text=text)
    NOTES.append(note)
    return note


@server.tool(annotations=ToolAnnotations(destructive_hint=True))
def delete_note(note_id: int) -> str:
    """Delete a research note."""
    NOTES[:] = [n for n in NOTES if n.id != note_id]
    return f"deleted {note_id}"


@server.tool(annotations=READ)
def server_pid() -> int:
    """The process id of this server."""
    return os.getpid()


@server.tool(annotations=READ)
def crash() -> str:
    """End this server process at once (tests reconnection)."""
    os._exit(3)


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
