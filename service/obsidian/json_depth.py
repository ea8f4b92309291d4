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

from service.json_depth import too_deep as _nested_past

MAX_FILE_DEPTH = 100


def too_deep(value: Any, limit: int = MAX_FILE_DEPTH) -> bool:
    """Whether arrays and objects nest in `value` more than `limit` levels (`service.json_depth`)."""
    return _nested_past(value, limit)
