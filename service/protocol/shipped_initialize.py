"""`initialize` answers shipped with the package, for a stdio start on an empty cache folder.

The SDK's answer to `initialize` depends on the client's requested protocol version (the
negotiated one, and the SDK's per-version field sieve), the server's name, version, texts and
handlers, and the SDK's release: not on the settings nor the vault (`VaultgateApp.server`
reads neither). `vaultgate docs initialize-answers` writes the SDK's own answer for every
handshake version into `initialize-answers.json` beside this module (committed;
`tests/contract/test_shipped_initialize.py` fails with that command when it differs from what
the SDK answers), so the stdio front (`service.protocol.stdio_front`) answers a first
`initialize` before pydantic, the settings or the SDK are imported, as it answers from the
answers an earlier start stored. The table is used only for the vaultgate version and the SDK
distributions it was made with, and only for params of the plain shape every client sends
(anything else still goes to the SDK, which validates it).

Standard library only at module level: the front reads the table before anything else loads.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from typing import Any

from service._version import VERSION

SHIPPED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "initialize-answers.json")
_PARAMS = frozenset({"protocolVersion", "capabilities", "clientInfo"})
_CLIENT_INFO = frozenset({"name", "version", "title"})


def sdk_distributions() -> list[str]:
    """The installed SDK's distribution folders (`mcp-X.dist-info`, `mcp_types-X.dist-info`),
    found without importing the SDK or `importlib.metadata` (~25 ms)."""
    for entry in sys.path:
        if entry and os.path.isdir(os.path.join(entry, "mcp_types")):
            with contextlib.suppress(OSError):
                return sorted(
                    n for n in os.listdir(entry) if n.startswith(("mcp-", "mcp_types-")) and n.endswith(".dist-info")
                )
    return []


def read_shipped(path: str) -> dict[str, Any] | None:
    """A shipped answers file, when it reads and was made for this vaultgate and this SDK."""
    try:
        with open(path, "rb") as handle:
            data = json.loads(handle.read())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("vaultgate") != VERSION or data.get("sdk") != sdk_distributions():
        return None
    return data


class ShippedInitialize:
    """The shipped answers, when they were made for this vaultgate and this SDK (else empty)."""

    def __init__(self, path: str | None = None) -> None:
        self.answers: dict[str, str] = {}  # negotiated protocol version -> the result's JSON
        self.versions: tuple[str, ...] = ()  # the handshake versions, oldest first (the SDK's list)
        data = read_shipped(SHIPPED if path is None else path)
        if data is None or not isinstance(data.get("answers"), dict):
            return
        self.answers = {k: v for k, v in data["answers"].items() if isinstance(k, str) and isinstance(v, str)}
        self.versions = tuple(v for v in data.get("handshake", ()) if v in self.answers)

    def answer(self, params: Any) -> str | None:
        """The result JSON the SDK would answer `initialize` with these params, or None (no valid
        table, or params the front leaves to the SDK's validation)."""
        if not self.versions or not _plain(params):
            return None
        requested = params["protocolVersion"]
        return self.answers[requested if requested in self.versions else self.versions[-1]]


def _plain(params: Any) -> bool:
    """Params of the shape every client sends, which the SDK's model accepts as they are."""
    if not isinstance(params, dict) or params.keys() - _PARAMS or not isinstance(params.get("protocolVersion"), str):
        return False
    info, caps = params.get("clientInfo"), params.get("capabilities")
    if not isinstance(info, dict) or info.keys() - _CLIENT_INFO or not {"name", "version"} <= info.keys():
        return False
    if not all(isinstance(v, str) for v in info.values()) or not isinstance(caps, dict):
        return False
    return all(isinstance(v, dict) and all(isinstance(x, dict) for x in v.values()) for v in caps.values())


async def sdk_answers(server: Any) -> dict[str, str]:
    """What the SDK's `server` (an `mcp.server.lowlevel.server.Server`) writes as the result of
    `initialize` for each handshake version: one connection each, the lines as the front passes
    them (service/protocol/stdio_front.py, `session`)."""
    import anyio
    import mcp_types as types
    from mcp.shared._context_streams import create_context_streams
    from mcp.shared.message import SessionMessage
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    answers: dict[str, str] = {}
    for version in HANDSHAKE_PROTOCOL_VERSIONS:
        read_writer, read_stream = create_context_streams["Any"](1)
        write_stream, write_reader = create_context_streams["Any"](1)
        params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}
        line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
        async with read_writer, read_stream, write_stream, write_reader, anyio.create_task_group() as tg:
            tg.start_soon(server.run, read_stream, write_stream, server.create_initialization_options())
            await read_writer.send(SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False)))
            message = (await write_reader.receive()).message
            data = message.model_dump_json(by_alias=True, exclude_unset=True)
            answers[version] = json.dumps(json.loads(data)["result"], separators=(",", ":"), ensure_ascii=False)
            tg.cancel_scope.cancel()
    return answers


def shipped_table(answers: dict[str, str]) -> str:
    """The file's text for these answers (`vaultgate docs initialize-answers`)."""
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    table = {
        "vaultgate": VERSION,
        "sdk": sdk_distributions(),
        "handshake": list(HANDSHAKE_PROTOCOL_VERSIONS),
        "answers": answers,
    }
    return json.dumps(table, indent=1, ensure_ascii=False) + "\n"
