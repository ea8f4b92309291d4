"""JSON-RPC framing: the one step that parses and validates a client's message, for every front.

Each way in — the HTTP request front (`service.http.front`, before the Streamable HTTP
transport and its fast path) and the stdio front (`service.protocol.stdio_front`, before the
SDK's session and the stdio fast path) — hands the raw bytes of a message to `read_message`
before anything else looks at them. The fast paths branch off after it: they may skip work,
never this check. What it guarantees of a message it lets through:

- strict JSON (RFC 8259) in UTF-8: no `NaN`, `Infinity` or `-Infinity`, no number that
  overflows a double, no lone surrogate (`"\\ud800"`), at most `MAX_DEPTH` nested arrays and
  objects (the SDK's own parser stops at about 200) and at most `max_bytes` bytes;
- one JSON-RPC 2.0 message (MCP has no batches since 2025-06-18; the SDK refuses them): an
  object with `"jsonrpc": "2.0"` and either a `method` (a string; with an `id` a request, else
  a notification; `params` an object or null) or a response (an `id` and exactly one of
  `result` / `error`, the error an object with an integer `code` and a string `message`);
- a request's id is a string or an integer (JSON-RPC 2.0; MCP: never null). The SDK's
  transports read a message with any other id (an object, an array, a boolean, null, a float)
  as a notification and never answer it, so the client would wait forever.

Anything else is `Refused`: a JSON-RPC error — `-32700 Parse error` for what is not strict
JSON or nests too deep, `-32600 Invalid Request` for a valid JSON value that is not one valid
message or is too large — and the HTTP status the SDK gives those (400; 413 for a body over the
limit). Its id is null when the message's id cannot be read (JSON-RPC 2.0, 5.1), else the
request's own id: a request that parses, names a method and carries a valid id but nests too
deep, holds a lone surrogate or has params that are no object is answered with its id, so the
client that waits for that id is told (an SDK client waited forever for an answer with id null).
The message is never half-handled: a front answers the refusal itself and the connection goes on.

Standard library only, and nothing heavier than `json`: the stdio front checks lines before
pydantic is imported. `json`'s C scanner parses; the depth is counted only when the message
holds more brackets than `MAX_DEPTH` (a plain tool call holds a handful), and strings are looked
at only when the text holds a surrogate's escape.
"""

from __future__ import annotations

import json
import math
import re
import sys

from service.json_depth import too_deep

TYPE_CHECKING = False
if TYPE_CHECKING:  # `typing` costs the stdio front ~2 ms at start
    from typing import Any

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
UNSUPPORTED_VERSION = -32022  # MCP's "Unsupported protocol version" (`mcp_types.UNSUPPORTED_PROTOCOL_VERSION`)
_LABELS = {PARSE_ERROR: "Parse error", UNSUPPORTED_VERSION: "Unsupported protocol version"}  # else Invalid Request
MAX_DEPTH = 200  # nested arrays/objects; pydantic's JSON parser (the SDK's) refuses from ~201
MAX_BYTES = 4 * 1024 * 1024  # the SDK's default body limit; HTTP passes its configured one


class Refused:
    """Why a message is not answered by the server proper: the JSON-RPC error and HTTP status,
    and the error's `data` when it has one (the HTTP front's refusal of an unsupported
    `MCP-Protocol-Version` header lists the versions served there).
    (A plain class: `dataclasses` would cost the stdio front ~6 ms of imports at start.)"""

    __slots__ = ("code", "reason", "status", "id", "data")

    def __init__(
        self,
        code: int,
        reason: str,
        status: int = 400,
        id: str | int | None = None,  # noqa: A002
        data: dict[str, Any] | None = None,
    ) -> None:
        self.code = code
        self.reason = reason
        self.status = status
        self.id = id  # the refused request's id when it could be read, else None (module text)
        self.data = data

    def __repr__(self) -> str:
        told = f", data={self.data!r}" if self.data is not None else ""
        return f"Refused(code={self.code}, reason={self.reason!r}, status={self.status}, id={self.id!r}{told})"

    def error(self) -> dict[str, Any]:
        message = f"{_LABELS.get(self.code, 'Invalid Request')}: {self.reason}"
        error: dict[str, Any] = {"code": self.code, "message": message}
        if self.data is not None:
            error["data"] = self.data
        return {"jsonrpc": "2.0", "id": self.id, "error": error}

    def body(self) -> bytes:
        return json.dumps(self.error()).encode()


def too_large(size: int | None, max_bytes: int) -> Refused:
    """The refusal of a message over `max_bytes` (`size`: its length when known)."""
    told = f"{size} bytes" if size is not None else "the message"
    return Refused(INVALID_REQUEST, f"{told} is over the limit of {max_bytes} bytes", 413)


def reused_id(rid: str | int) -> Refused:
    """The refusal of a request whose id a request of the same client still in flight carries
    (MCP: an id is not used twice within a session), as every front answers it."""
    told = f"request id {rid!r} is in use by a request in flight on this session"
    return Refused(INVALID_REQUEST, f"{told} (a request id must not be used twice within a session)", id=rid)


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"the number {text[:40]} is out of range")
    return value


_DECODER = json.JSONDecoder(parse_constant=_constant, parse_float=_finite)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # the escape of a UTF-16 surrogate


def read_message(data: bytes | bytearray | str, *, max_bytes: int = MAX_BYTES) -> dict[str, Any] | Refused:
    """The one JSON-RPC message in `data`, parsed and validated, or why it is refused."""
    if len(data) > max_bytes:
        return too_large(len(data), max_bytes)
    try:
        text = data if isinstance(data, str) else bytes(data).decode("utf-8")
        payload = _DECODER.decode(text)
    except RecursionError:
        return Refused(PARSE_ERROR, f"nested deeper than {MAX_DEPTH}")
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, the hooks, int digits
        told = str(exc)
        if told.startswith("Exceeds the limit"):  # (Python's int digits: its advice is for the server's admin)
            told = f"a number has more than {sys.get_int_max_str_digits()} digits"
        return Refused(PARSE_ERROR, told[:200])
    # the id to echo is read only in a refusal: a message let through never needs it
    # nesting deeper than MAX_DEPTH takes more than 2 * MAX_DEPTH characters and brackets
    deep = len(text) > 2 * MAX_DEPTH and text.count("[") + text.count("{") > MAX_DEPTH
    if deep and too_deep(payload, MAX_DEPTH):
        return Refused(PARSE_ERROR, f"nested deeper than {MAX_DEPTH}", id=_request_id(payload))
    if _SURROGATE_ESCAPE.search(text) is not None and _lone_surrogate(payload):
        return Refused(PARSE_ERROR, "a string holds a lone surrogate", id=_request_id(payload))
    reason = envelope_error(payload)
    if reason is not None:
        return Refused(INVALID_REQUEST, reason, id=_request_id(payload))
    assert isinstance(payload, dict)
    return payload


def envelope_error(payload: Any) -> str | None:
    """Why `payload` (parsed JSON) is not one valid JSON-RPC 2.0 message for MCP, else None."""
    if isinstance(payload, list):
        return "batches are not supported (send one message per request or line)"
    if not isinstance(payload, dict):
        return "a message is a JSON object"
    if payload.get("jsonrpc") != "2.0":
        return 'a message needs "jsonrpc": "2.0"'
    if "method" in payload:
        if not isinstance(payload["method"], str):
            return "the method must be a string"
        if "id" in payload and not _valid_id(payload["id"]):
            return f"a request id must be a string or an integer, not {_kind(payload['id'])}"
        if payload.get("params") is not None and not isinstance(payload["params"], dict):
            return f"params must be an object, not {_kind(payload['params'])}"
        return None
    if "id" not in payload or ("result" in payload) == ("error" in payload):
        return "a message needs a method (a request or notification), or an id and a result or an error"
    rid = payload["id"]
    if "error" in payload:
        error = payload["error"]
        code = error.get("code") if isinstance(error, dict) else None
        if not isinstance(code, int) or isinstance(code, bool) or not isinstance(error.get("message"), str):
            return "an error needs an integer code and a string message"
        if rid is None:  # an error about a message whose id could not be read
            return None
    return None if _valid_id(rid) else f"a response id must be a string or an integer, not {_kind(rid)}"


def _request_id(payload: Any) -> str | int | None:
    """The id of a request (a method and a valid id) in `payload`, else None (an id that is
    itself a lone surrogate is no id to echo)."""
    if not isinstance(payload, dict) or not isinstance(payload.get("method"), str) or payload.get("jsonrpc") != "2.0":
        return None
    rid = payload.get("id")
    if isinstance(rid, str) and _lone_surrogate(rid):
        return None
    return rid if _valid_id(rid) else None


def _valid_id(rid: Any) -> bool:
    return isinstance(rid, str) or (isinstance(rid, int) and not isinstance(rid, bool))


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "object", list: "array", bool: "boolean", float: "number", str: "string"}.get(type(value), "number")


def _lone_surrogate(payload: Any) -> bool:
    """Whether a string or key in `payload` holds a surrogate that pairs with nothing."""
    stack = [payload]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            try:
                node.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False
