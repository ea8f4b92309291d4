"""What a client declares that decides where its calls run: the protocol era its first request
opens (`opens_modern`), and the `elicitation` capability; and the `ping` the stdio front answers
itself on a handshake-era connection (`bare_ping`). A tool that may ask for confirmation
is asked through the SDK's session when the client can be asked, so the fast paths
(`service.protocol.fast_path`) leave such calls to the SDK for that client. Standard library
only: the stdio front reads `initialize` before the SDK is imported.
"""

from __future__ import annotations

from typing import Any


def declares_elicitation(params: Any) -> bool:
    """Whether `initialize` params declare the `elicitation` capability, as the SDK's session
    reads it (present and not null; the confirmation layer asks only such a client)."""
    caps = params.get("capabilities") if isinstance(params, dict) else None
    return isinstance(caps, dict) and caps.get("elicitation") is not None


def opens_modern(msg: dict[str, Any]) -> bool:
    """Whether a connection's first request `msg` opens the 2026-07-28 era, as the SDK's dual-era
    loop decides it: not `initialize`, and its `_meta` holds the envelope's protocol version."""
    params = msg.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    opens = isinstance(meta, dict) and "io.modelcontextprotocol/protocolVersion" in meta
    return opens and msg.get("method") != "initialize"


def bare_ping(msg: dict[str, Any]) -> bool:
    """A `ping` with nothing the SDK would check: the JSON-RPC envelope only, no params or `{}`.
    On a handshake-era connection the stdio front answers it as the SDK does (an empty result),
    before the attach (`StdioFront._question`) and after (`FastCalls.route`): the SDK's session
    spent ~0.4 ms of CPU on each. (A 2026-07-28 connection has no `ping`: its SDK answers.)"""
    keys = msg.keys() <= {"jsonrpc", "id", "method", "params"} and "id" in msg
    return keys and msg.get("method") == "ping" and msg.get("params") in (None, {})
