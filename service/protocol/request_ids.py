"""Which JSON-RPC request ids are valid: a string or an integer (JSON-RPC 2.0; MCP: never null).

One rule for both channels. The SDK's transports read a message with any other id (an object,
an array, a boolean, null, a float) as a notification and never answer it, so the client waits
forever: the HTTP edge (`service.http.request_ids`) and the stdio front
(`service.protocol.stdio_front`) answer such a request with `-32600 Invalid Request` instead.
Standard library only: the stdio front checks lines before anything else is imported.
"""

from __future__ import annotations

from typing import Any

INVALID_REQUEST = -32600


def bad_request_id(payload: Any) -> str | None:
    """Why `payload` (one parsed message or a batch) holds a request with an invalid id, else None."""
    for message in payload if isinstance(payload, list) else [payload]:
        if not isinstance(message, dict) or "method" not in message or "id" not in message:
            continue
        rid = message["id"]
        if isinstance(rid, bool) or not isinstance(rid, str | int):
            kind = "null" if rid is None else type(rid).__name__.replace("dict", "object").replace("list", "array")
            return f"a request id must be a string or an integer, not {kind}"
    return None


def invalid_request(reason: str) -> dict[str, Any]:
    """The JSON-RPC error for a request whose id cannot be echoed: its id is null."""
    return {"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": f"Invalid Request: {reason}"}}
