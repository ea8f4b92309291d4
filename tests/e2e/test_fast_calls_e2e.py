"""The stdio fast path (service/protocol/fast_calls.py) against the SDK's path, on the wire: the
same requests to `vaultgate stdio` with `[protocol] fast_calls` on and off get the same lines
back, byte for byte (a log notification's duration aside), and with it on the plain calls,
writes included, really were answered past the SDK. Each side serves its own copy of the vault
(the writes change it)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

INIT = {
    "jsonrpc": "2.0",
    "id": "init",
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}
FAST_LOG = "answered past the SDK"
# The 2026-07-28 era: no `initialize`; every request carries this in its `_meta`.
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def _call(rid: Any, name: Any, arguments: Any = None, **params: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"name": name, **params} if name is not None else dict(params)
    if arguments is not None:
        body["arguments"] = arguments
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": body}


# Asked in this order after the handshake; each waits for its answer (and what came before it).
SCRIPT: list[dict[str, Any]] = [
    _call(1, "read_note", {"path": "Welcome"}),
    _call("s-ü ✓", "read_note", {"path": "Nope"}),  # a tool error
    _call(-3, "no_such_tool", {}),  # unknown tool
    _call(2**40, "read_note", {"pathx": 1}),  # invalid arguments
    _call("", "list_notes", {}),
    _call("7", "read_note", {"path": "Projects/Plan#Goals"}),
    _call(0, "read_note", {"path": "Welcome"}, _meta={"vaultgate/idempotency_key": "k-1"}),
    _call(2**62, "read_note", {"path": "Projects/Notes/Idea"}, _meta={"vaultgate/idempotency_key": 5}),
    _call(10, None, {}),  # protocol errors: no name, arguments not an object, params not an object
    _call(11, "read_note", ["Welcome"]),
    _call(12, "read_note", {"path": "Welcome"}, _meta=None),  # (params that are not an object get no answer at all)
    {"jsonrpc": "2.0", "id": 13, "method": "tools/calll", "params": {"name": "read_note"}},
    {"jsonrpc": "2.0", "id": 14.5, "method": "tools/call", "params": {"name": "read_note"}},
    _call(15, "read_note", {"path": "Welcome"}, _meta={"progressToken": "p"}),  # the SDK's path on both
    _call(16, "create_note", {"path": "Welcome", "content": "x\n"}),  # a change refused: already_exists
    _call(20, "create_note", {"path": "Inbox/New", "content": "# New\n\nfresh words\n"}),  # writes
    _call(21, "append_note", {"path": "Inbox/New", "content": "- more\n"}),
    _call(22, "patch_note", {"path": "Projects/Plan", "heading": ["Plan", "Risks"], "content": "Late.\n"}),
    _call(23, "write_note", {"path": "Welcome", "content": "gone\n", "mode": "overwrite"}),  # elicit_required
    _call(24, "search_text", {"query": "fresh words"}),  # the caller's own write, found
    _call(25, "read_note", {"path": "Projects/Plan#Risks"}),
    {"jsonrpc": "2.0", "id": 17, "method": "logging/setLevel", "params": {"level": "debug"}},
    _call(18, "read_note", {"path": "Nope"}),  # now with log notifications before the answer
]
FAST_IDS = {1, "s-ü ✓", -3, 2**40, "", "7", 0, 2**62, 16, 20, 21, 22, 23, 24, 25}


class _Server:
    """`vaultgate stdio ROOT` spoken to line by line."""

    def __init__(self, proc: asyncio.subprocess.Process, log: Path, modern: bool = False) -> None:
        self.proc = proc
        self.log = log
        self.modern = modern  # every request goes out in the 2026-07-28 envelope (`enveloped`)

    @classmethod
    async def start(cls, root: Path, state: Path, *, fast: bool, modern: bool = False) -> _Server:
        log = _log_file(state)
        env = {
            **os.environ,
            "VAULTGATE_PROTOCOL__FAST_CALLS": "true" if fast else "false",
            "VAULTGATE_STORAGE__CACHE_DIR": str(state / "cache"),
            "VAULTGATE_STORAGE__DATA_DIR": str(state / "data"),
            "VAULTGATE_EMBEDDINGS__PROVIDER": "none",
            "VAULTGATE_LOG__LEVEL": "debug",
        }
        with open(log, "ab") as err:  # noqa: ASYNC230 - a local file, opened once
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "service", "stdio", str(root),
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=err, env=env,
                limit=1 << 22,  # a tool list is one line of ~100 KB
            )  # fmt: skip
        return cls(proc, log, modern)

    async def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        if self.modern and "id" in message:
            message = enveloped(message)
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        await self.proc.stdin.drain()

    async def ask(self, message: dict[str, Any]) -> list[bytes]:
        """The lines written from the request on, up to its answer (an invalid id's answer has id null)."""
        assert self.proc.stdout is not None
        await self.send(message)
        rid = message["id"] if isinstance(message["id"], str | int) else None
        lines: list[bytes] = []
        while True:
            line = await asyncio.wait_for(self.proc.stdout.readline(), 60)
            assert line, "the server closed its output"
            lines.append(line)
            msg = json.loads(line)
            if "method" not in msg and msg.get("id") == rid:
                return lines

    async def ready(self) -> None:
        if self.modern:
            await self.ask({"jsonrpc": "2.0", "id": "discover", "method": "server/discover", "params": {}})
        else:
            await self.ask(INIT)
            await self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        for n in range(600):  # the index of a five-note vault is ready in well under a minute
            (line,) = await self.ask(_call(f"status-{n}", "index_status", {}))
            if json.loads(line)["result"]["structuredContent"]["ready"]:
                return
            await asyncio.sleep(0.1)
        raise AssertionError("the index never became ready")

    async def close(self) -> str:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        await asyncio.wait_for(self.proc.wait(), 60)
        return self.log.read_text(encoding="utf-8", errors="replace")


def enveloped(message: dict[str, Any], capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
    """`message` as a 2026-07-28 client sends it: the envelope added to its params' `_meta`
    (params or a `_meta` that are not objects are left as they are: both paths refuse them)."""
    params = message.get("params", {})
    if not isinstance(params, dict) or not isinstance(params.get("_meta", {}), dict):
        return message
    envelope = {**ENVELOPE, **({"io.modelcontextprotocol/clientCapabilities": capabilities} if capabilities else {})}
    return {**message, "params": {**params, "_meta": {**params.get("_meta", {}), **envelope}}}


def _log_file(state: Path) -> Path:
    state.mkdir(parents=True, exist_ok=True)
    return state / "stderr.log"


def _comparable(lines: list[bytes]) -> list[bytes]:
    """A log notification's duration, a file's mtime (each side has its own copy of the vault) and
    a confirmation's expiry vary from run to run; everything else must not."""
    return [re.sub(rb'(\\?"(?:duration_ms|mtime|expires_at)\\?": ?)[0-9.e+-]+', rb"\g<1>0", line) for line in lines]


def _fast_ids(log: str) -> list[str]:
    return re.findall(rf"tools/call (.*) {FAST_LOG}", log)


async def _run(
    root: Path,
    state: Path,
    *,
    fast: bool,
    modern: bool = False,
    script: list[dict[str, Any]] = SCRIPT,
    same: Callable[[list[bytes]], list[bytes]] = _comparable,
) -> tuple[list[list[bytes]], str]:
    """Each message of `script` asked after the handshake: its lines as `same` makes them comparable; the log."""
    server = await _Server.start(root, state, fast=fast, modern=modern)
    try:
        await server.ready()
        answers = [same(await server.ask(message)) for message in script]
    finally:
        log = await server.close()
    return answers, log


@pytest.mark.parametrize("modern", [False, True], ids=["handshake", "2026-07-28"])
async def test_fast_calls_answer_byte_for_byte_what_the_sdk_answers(
    make_vault: Callable[..., Path], tmp_path: Path, modern: bool
) -> None:
    slow, slow_log = await _run(make_vault(name="slow/vault"), tmp_path / "slow", fast=False, modern=modern)
    fast, fast_log = await _run(make_vault(name="fast/vault"), tmp_path / "fast", fast=True, modern=modern)
    for message, want, got in zip(SCRIPT, slow, fast, strict=True):
        assert got == want, message
    assert _fast_ids(slow_log) == []
    served = [json.loads(rid) for rid in _fast_ids(fast_log) if not rid.startswith('"status-')]
    assert served == [rid for rid in (m["id"] for m in SCRIPT) if rid in FAST_IDS and not isinstance(rid, bool)]
    first = json.loads(fast[0][0])["result"]
    assert first["structuredContent"]["title"] == "Welcome" and first["isError"] is False
    if modern:  # the era's own envelope: a result type and the server's stamp
        assert first["resultType"] == "complete" and first["_meta"]["io.modelcontextprotocol/serverInfo"]["name"]
    assert b'"code":"note_not_found"' in fast[1][0]
    by_id = {m["id"]: json.loads(answer[-1]) for m, answer in zip(SCRIPT, fast, strict=True)}
    assert by_id[20]["result"]["structuredContent"]["created"] is True
    assert by_id[23]["result"]["structuredContent"]["error"]["code"] == "elicit_required"
    assert by_id[24]["result"]["structuredContent"]["items"][0]["path"] == "Inbox/New.md"
    assert "Late." in by_id[25]["result"]["structuredContent"]["content"]
    if not modern:
        assert any(b"notifications/message" in line for line in fast[-1])  # the SDK's session sent the logs


async def test_a_2026_call_asking_for_logs_or_with_a_bad_envelope_goes_to_the_sdk(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    """At 2026-07-28 a log level rides the request's `_meta`: such a call is the SDK's (its log
    notifications come before the answer); an unsupported version in the envelope is answered
    the SDK's error; a plain call next to them is answered here."""
    server = await _Server.start(make_vault(), tmp_path / "state", fast=True, modern=True)
    try:
        await server.ready()
        logged = await server.ask(
            _call("logged", "read_note", {"path": "Nope"}, _meta={"io.modelcontextprotocol/logLevel": "debug"})
        )
        bad = enveloped(_call("bad", "read_note", {"path": "Welcome"}))
        bad["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = "2099-01-01"
        server.modern = False  # sent as it is
        (refused,) = await server.ask(bad)
        (plain,) = await server.ask(enveloped(_call("plain", "read_note", {"path": "Welcome"})))
    finally:
        log = await server.close()
    assert any(b"notifications/message" in line for line in logged[:-1])
    assert json.loads(logged[-1])["result"]["structuredContent"]["error"]["code"] == "note_not_found"
    assert json.loads(refused)["error"]["data"]["requested"] == "2099-01-01"
    assert json.loads(plain)["result"]["structuredContent"]["title"] == "Welcome"
    assert _fast_ids(log)[-1:] == ['"plain"'] and '"logged"' not in _fast_ids(log) and '"bad"' not in _fast_ids(log)


async def test_a_second_start_answering_initialize_from_the_store_serves_fast_calls(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    root = make_vault()
    for run in range(2):
        server = await _Server.start(root, tmp_path / "state", fast=True)
        try:
            await server.ready()
            (line,) = await server.ask(_call(f"read-{run}", "read_note", {"path": "Welcome"}))
        finally:
            log = await server.close()
        assert json.loads(line)["result"]["structuredContent"]["title"] == "Welcome"
        assert f'"read-{run}"' in _fast_ids(log)


async def test_a_client_that_can_be_asked_gets_confirmable_writes_through_the_sdk(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    """A client that declared `elicitation` is asked through the SDK's session, so a write that
    may need confirmation goes there; one that never does stays fast. Both starts: the first
    `initialize` answered by the SDK, the second from the store."""
    root = make_vault()
    init = {**INIT, "params": {**INIT["params"], "capabilities": {"elicitation": {}}}}
    for run in range(3):  # the third a 2026-07-28 client, declaring it in each request's envelope
        server = await _Server.start(root, tmp_path / "state", fast=True)
        asking = {"elicitation": {}}
        try:
            if run < 2:
                await server.ask(init)
                await server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            create = _call(f"create-{run}", "create_note", {"path": f"New {run}", "content": "x\n"})
            append = _call(f"append-{run}", "append_note", {"path": f"New {run}", "content": "y\n"})
            if run == 2:
                create, append = enveloped(create, asking), enveloped(append, asking)
            (made,) = await server.ask(create)
            (added,) = await server.ask(append)
        finally:
            log = await server.close()
        assert json.loads(made)["result"]["structuredContent"]["created"] is True
        assert json.loads(added)["result"]["isError"] is False
        assert _fast_ids(log)[-1:] == [f'"append-{run}"'] and f'"create-{run}"' not in _fast_ids(log)


async def test_a_2026_envelope_whose_values_the_sdk_refuses_is_the_sdks_over_stdio(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    """The stdio fast path checked a 2026-07-28 envelope's keys, not its values: a call whose
    client capabilities were null or whose client info had no version was run and answered,
    where the SDK answers `-32602 Invalid request parameters`."""
    caps, info = "io.modelcontextprotocol/clientCapabilities", "io.modelcontextprotocol/clientInfo"
    bad = [{**ENVELOPE, caps: None}, {**ENVELOPE, caps: []}, {**ENVELOPE, info: 5}, {**ENVELOPE, info: {"name": "x"}}]
    script = [_call(n, "read_note", {"path": "Welcome"}, _meta=meta) for n, meta in enumerate(bad)]
    answers = []
    for fast in (False, True):
        side = "fast" if fast else "slow"
        server = await _Server.start(make_vault(name=f"{side}/vault"), tmp_path / side, fast=fast, modern=True)
        try:
            await server.ready()
            server.modern = False  # each message carries its own (bad) envelope
            answers.append([_comparable(await server.ask(message)) for message in script])
        finally:
            log = await server.close()
    slow, fast_answers = answers
    assert fast_answers == slow
    assert all(json.loads(lines[-1])["error"]["code"] == -32602 for lines in fast_answers)
    assert [rid for rid in _fast_ids(log) if not rid.startswith('"status-')] == []
