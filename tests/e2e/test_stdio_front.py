"""The stdio front (service/protocol/stdio_front.py): a second start answers `initialize` /
`server/discover` and `tools/list` from the answers the first start stored, and the session
behind them works exactly as before; other settings never reuse those answers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

_made = iter(range(1000))


def _answers_files() -> list[Path]:
    return sorted(Path(os.environ["XDG_CACHE_HOME"]).rglob("stdio-answers-*.json"))


async def _session(root: Path, mode: str, *extra: str) -> tuple[list[str], dict[str, object]]:
    args = ["-m", "service", "stdio", str(root), *extra]
    # The test's cache folder (the SDK passes only a few variables on by default).
    params = StdioServerParameters(command=sys.executable, args=args, env=dict(os.environ))
    async with Client(params, mode=mode) as client:  # type: ignore[arg-type]
        names = [t.name for t in (await client.list_tools()).tools]
        read = await client.call_tool("read_note", {"path": "Welcome"})
        assert not read.is_error and read.structured_content is not None
        made = await client.call_tool("create_note", {"path": f"From {mode} {next(_made)}", "content": "hi\n"})
        assert not made.is_error
        return names, read.structured_content


async def test_a_second_start_answers_from_the_store_and_serves_as_before(
    make_vault: Callable[..., Path], mode: str
) -> None:
    root = make_vault()
    first_names, first_read = await _session(root, mode)
    stored = _answers_files()
    assert len(stored) == 1 and stored[0].stat().st_size > 0
    before = stored[0].read_bytes()
    second_names, second_read = await _session(root, mode)
    assert second_names == first_names
    assert second_read["etag"] == first_read["etag"]
    assert _answers_files() == stored and stored[0].read_bytes() == before  # all answered from the store
    assert len(list(root.glob(f"From {mode} *.md"))) == 2


async def test_other_settings_never_reuse_the_stored_answers(make_vault: Callable[..., Path]) -> None:
    root = make_vault()
    lean, _ = await _session(root, "legacy")
    triad, _ = await _session(root, "legacy", "--tool-facade", "triad")
    assert len(triad) < len(lean) and "read_note" in lean and "read_note" not in triad
    assert len(_answers_files()) == 2  # one store per key: alternating settings both stay fast
    again, _ = await _session(root, "legacy")
    assert again == lean


def _first_answers(root: Path, cache: Path, init: dict[str, object]) -> tuple[bytes, bytes, bytes]:
    """The raw `initialize`, `tools/list` and `read_note` answer lines of a start on `cache`."""
    env = {**os.environ, "VAULTGATE_EMBEDDINGS__PROVIDER": "none", "XDG_CACHE_HOME": str(cache)}
    with subprocess.Popen(
        [sys.executable, "-m", "service", "stdio", str(root)], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        lines = []
        for msg in (
            {"id": 1, "method": "initialize", "params": init},
            {"method": "notifications/initialized"},
            {"id": 2, "method": "tools/list", "params": {}},
            {"id": 3, "method": "tools/call", "params": {"name": "read_note", "arguments": {"path": "Welcome"}}},
        ):
            proc.stdin.write(json.dumps({"jsonrpc": "2.0", **msg}).encode() + b"\n")
            proc.stdin.flush()
            if "id" in msg:
                lines.append(proc.stdout.readline())
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    assert [json.loads(line)["id"] for line in lines] == [1, 2, 3] and b'"isError":false' in lines[2]
    return lines[0], lines[1], lines[2]


def _stored_methods(cache: Path) -> list[str]:
    (store,) = cache.rglob("stdio-answers-*.json")
    return sorted(key.split("|")[1] for key in json.loads(store.read_text(encoding="utf-8"))["answers"])


def test_an_empty_cache_answers_initialize_and_tools_list_from_the_package_as_the_sdk_does(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    root = make_vault()
    plain = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    shipped, shipped_list, read = _first_answers(root, tmp_path / "shipped", plain)
    # capabilities with nested values are left to the SDK (service/protocol/shipped_initialize.py),
    # and so is the list of a handshake the front did not answer (shipped_tools_list.py)
    sdk_params = {**plain, "capabilities": {"roots": {"listChanged": True}}}
    by_sdk, sdk_list, sdk_read = _first_answers(root, tmp_path / "sdk", sdk_params)
    assert shipped == by_sdk  # byte for byte
    assert shipped_list == sdk_list
    assert json.loads(read)["result"] == json.loads(sdk_read)["result"]
    # the SDK answered the second start's `initialize` (stored for the next one), not the first's;
    # the first stored the shipped list for its next start
    assert _stored_methods(tmp_path / "shipped") == ["tools/list"]
    assert _stored_methods(tmp_path / "sdk") == ["initialize", "tools/list"]


@pytest.mark.parametrize("fast", [False, True], ids=["sdk", "fast-calls"])
async def test_a_request_with_the_replay_id_of_the_front_is_answered(
    make_vault: Callable[..., Path], tmp_path: Path, fast: bool
) -> None:
    """The front replays an `initialize` it answered to the SDK under its own id and drops the
    SDK's answer to it; it dropped every answer with that id, so a client request that used it
    (a ping; a tool call on the SDK's path) was never answered and its client waited forever."""
    from service.protocol.stdio_front import REPLAY_ID
    from tests.e2e.test_fast_calls_e2e import _call, _Server

    server = await _Server.start(make_vault(), tmp_path / "state", fast=fast)
    try:
        await server.ready()  # its `initialize` answered from the package, then replayed to the SDK
        script = [
            {"jsonrpc": "2.0", "id": REPLAY_ID, "method": "ping"},
            _call(REPLAY_ID, "read_note", {"path": "Welcome"}),
        ]
        for message in script:
            await server.send(message)
            # a question after it: its answer arrives after the one before (or shows it was dropped)
            lines = await server.ask({"jsonrpc": "2.0", "id": "after", "method": "ping"})
            answered = [json.loads(line) for line in lines]
            assert [m.get("id") for m in answered] == [REPLAY_ID, "after"], message
            assert "result" in answered[0]
        assert json.loads(lines[0])["result"]["structuredContent"]["title"] == "Welcome"
    finally:
        await server.close()


def test_answers_to_huge_params_are_not_stored(make_vault: Callable[..., Path], tmp_path: Path) -> None:
    """The store keeps the SDK's answer under the question's params (and the `initialize`
    params), and every start reads it whole: `tools/list` calls with 1 MB of params each stored
    ~1 MB apiece (up to 64 of them, a 16 MB line each: a store of a gigabyte read at every start).
    Such answers are not stored now; the client is answered as before."""
    env = {**os.environ, "VAULTGATE_EMBEDDINGS__PROVIDER": "none", "XDG_CACHE_HOME": str(tmp_path / "cache")}
    init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    with subprocess.Popen(
        [sys.executable, "-m", "service", "stdio", str(make_vault())],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        answers = []
        for msg in (
            {"id": 1, "method": "initialize", "params": init},
            {"method": "notifications/initialized"},
            *(
                {"id": 10 + n, "method": "tools/list", "params": {"_meta": {"pad": f"{n}" + "x" * 200_000}}}
                for n in range(3)
            ),
            {"id": 20, "method": "tools/list", "params": {}},
        ):
            proc.stdin.write(json.dumps({"jsonrpc": "2.0", **msg}).encode() + b"\n")
            proc.stdin.flush()
            if "id" in msg:
                answers.append(json.loads(proc.stdout.readline()))
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    assert [a["id"] for a in answers] == [1, 10, 11, 12, 20]
    assert all("read_note" in {t["name"] for t in a["result"]["tools"]} for a in answers[1:])
    (store,) = (tmp_path / "cache").rglob("stdio-answers-*.json")
    assert b"x" * 1000 not in store.read_bytes()
    # the plain list is stored as before (and the padded ones' under `{"_meta":{}}`: `_meta` keys
    # beyond the 2026-07-28 envelope are not part of a stored answer's key, `stdio_target.keyed`)
    assert set(_stored_methods(tmp_path / "cache")) == {"tools/list"}
