"""How deep the JSON files Obsidian's plugins keep in the vault (canvases, Excalidraw scenes) may
nest, arrays and objects counted, the file's own object being level 1.

read_canvas and read_excalidraw pass a file's nodes or scene back inside the answer, a few
levels down (JSON-RPC `result`, `structuredContent`, the field, the list, the item), and an MCP
client's JSON parser refuses a message nested deeper than about 200 levels (the SDK's, pydantic:
`service.protocol.framing.MAX_DEPTH` holds requests to the same bound); the server's own
serializer (pydantic) stops near 255. So a canvas nested 200 deep was answered to a client that
could not parse it, and one nested 260 deep was an internal_error. Obsidian's own canvases and
the plugin's scenes nest a handful of levels; `MAX_FILE_DEPTH` leaves room for any real one and
for the answer's own levels. A deeper file is one these modules cannot read (a validation error
naming the file). The tools cannot write one: a call's arguments nest at most 48 levels
(`service.dispatch.validate`).
"""

from __future__ import annotations

from typing import Any

MAX_FILE_DEPTH = 100


def too_deep(value: Any, limit: int = MAX_FILE_DEPTH) -> bool:
    """Whether arrays and objects nest in `value` more than `limit` levels (level by level, no
    recursion: a file nested past Python's recursion limit is measured too)."""
    level = [value] if isinstance(value, dict | list) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        below: list[Any] = []
        for node in level:
            below += [c for c in (node.values() if isinstance(node, dict) else node) if isinstance(c, dict | list)]
        level = below
    return False
