"""`tools/list` answers shipped with the package, for a stdio start on an empty cache folder.

The SDK's answer to a first `tools/list` (no cursor) depends on the handshake version (the
SDK's per-version field sieve), the tools' specs and schemas (the code), and of the settings on
two sections only: `tool_facade` (which tools are advertised) and `tool_visibility` (which exist,
which are hidden); the registry, the schemas and `Visibility` read nothing else
(`tests/contract/test_shipped_tools_list.py` checks an app under many other settings lists the
same). `vaultgate docs tools-list-answers` writes the SDK's own answer for every handshake version
under the default settings into `tools-list-answers.json` beside this module (each distinct
answer once) (committed; the
contract test fails with that command when it differs from what the SDK answers), with the two
sections it was made under. Building that list at a start imports every domain package and the
SDK's server side (~1.5 s on 2 cores); the stdio front (`service.protocol.stdio_front`) instead
answers it from the table as soon as the settings are loaded and those two sections are the
table's (`list_settings`), before the app is built. Other settings, another vaultgate or SDK
release, a cursor, or a handshake the front did not answer: the SDK answers as before.

Standard library only at module level: the front reads the table before the app loads.
"""

from __future__ import annotations

import json
import os
from typing import Any

from service._version import VERSION
from service.protocol.shipped_initialize import read_shipped, sdk_distributions

SHIPPED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tools-list-answers.json")


def list_settings(settings: Any) -> str:
    """What of `settings` (a `service.settings.Settings`) the tool list depends on, canonically."""
    sections = {
        "tool_facade": settings.tool_facade.model_dump(mode="json"),
        "tool_visibility": settings.tool_visibility.model_dump(mode="json"),
    }
    return json.dumps(sections, sort_keys=True, separators=(",", ":"))


class ShippedToolsList:
    """The shipped answers, when they were made for this vaultgate and this SDK (else empty)."""

    def __init__(self, path: str | None = None) -> None:
        self._versions: dict[str, int] = {}  # negotiated protocol version -> its result in `_lists`
        self._lists: list[Any] = []  # the distinct results (the versions mostly share one)
        self.settings = ""  # `list_settings` of the settings the answers were made under
        data = read_shipped(SHIPPED if path is None else path)
        if data is None or not isinstance(data.get("settings"), str):
            return
        lists = data.get("lists")
        if not isinstance(lists, list) or not isinstance(data.get("versions"), dict):
            return
        self.settings = data["settings"]
        self._lists = lists
        self._versions = {k: v for k, v in data["versions"].items() if isinstance(v, int) and 0 <= v < len(lists)}

    def answer(self, handshake: Any, params: Any, settings: str) -> str | None:
        """The result JSON the SDK would answer this `tools/list` with, or None: another
        handshake, a cursor (or any other param), or settings other than the table's."""
        if params not in (None, {}) or settings != self.settings or handshake not in self._versions:
            return None
        return json.dumps(self._lists[self._versions[handshake]], separators=(",", ":"), ensure_ascii=False)


async def sdk_answers(server: Any) -> dict[str, str]:
    """What the SDK's `server` (an `mcp.server.lowlevel.server.Server`) writes as the result of a
    first `tools/list` after an `initialize` of each handshake version, one connection each."""
    import anyio
    import mcp_types as types
    from mcp.shared._context_streams import create_context_streams
    from mcp.shared.message import SessionMessage
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    def message(line: dict[str, Any]) -> Any:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(json.dumps(line), by_name=False))

    answers: dict[str, str] = {}
    for version in HANDSHAKE_PROTOCOL_VERSIONS:
        read_writer, read_stream = create_context_streams["Any"](1)
        write_stream, write_reader = create_context_streams["Any"](1)
        params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}
        async with read_writer, read_stream, write_stream, write_reader, anyio.create_task_group() as tg:
            tg.start_soon(server.run, read_stream, write_stream, server.create_initialization_options())
            await read_writer.send(message({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}))
            await write_reader.receive()
            await read_writer.send(message({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            await read_writer.send(message({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}))
            data = (await write_reader.receive()).message.model_dump_json(by_alias=True, exclude_unset=True)
            answers[version] = json.dumps(json.loads(data)["result"], separators=(",", ":"), ensure_ascii=False)
            tg.cancel_scope.cancel()
    return answers


def shipped_table(answers: dict[str, str], settings: str) -> str:
    """The file's text for these answers, made under `settings` (`vaultgate docs tools-list-answers`):
    each distinct result once, as JSON (the front writes it back compact, as the SDK does)."""
    distinct = list(dict.fromkeys(answers.values()))
    versions = {version: distinct.index(result) for version, result in answers.items()}
    lists = [json.loads(result) for result in distinct]
    table = {"vaultgate": VERSION, "sdk": sdk_distributions(), "settings": settings, "versions": versions}
    return json.dumps({**table, "lists": lists}, indent=1, ensure_ascii=False) + "\n"
