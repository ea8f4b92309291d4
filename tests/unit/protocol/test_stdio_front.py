"""The stdio front's bookkeeping: which questions it answers before the SDK attaches, what it
hands on, and which SDK answers it stores (the wire itself: tests/e2e/test_stdio_front.py)."""

from __future__ import annotations

import io
import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from service._version import VERSION
from service.protocol import shipped_initialize, shipped_tools_list, stdin_lines, stdio_target
from service.protocol.stdin_lines import StdinLines
from service.protocol.stdio_front import REPLAY_ID, StdioFront
from service.settings import Settings, load_settings

INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
REAL_SHIPPED = shipped_initialize.SHIPPED


@pytest.fixture(autouse=True)
def _no_shipped_initialize(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The store's tests see no shipped `initialize` answers (the tests below that use them
    point at the real file again)."""
    monkeypatch.setattr(shipped_initialize, "SHIPPED", str(tmp_path / "none.json"))


def _line(msg: dict[str, object]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **msg}).encode() + b"\n"


def _front(tmp_path: Path, key: str = "k") -> tuple[StdioFront, io.BytesIO]:
    front = StdioFront(tmp_path, key)
    out = io.BytesIO()
    front._out = out
    return front, out


def test_a_miss_is_handed_on_and_the_sdk_answer_stored_for_the_next_start(tmp_path: Path) -> None:
    front, out = _front(tmp_path)
    init = _line({"id": 1, "method": "initialize", "params": INIT})
    assert front._question(init) == init  # nothing stored yet: the SDK answers
    listed = _line({"id": 2, "method": "tools/list"})
    assert front._question(listed) == listed
    assert out.getvalue() == b""
    assert front._from_server(1, json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"serverInfo": {"name": "x"}}}))
    assert front._from_server(2, json.dumps({"jsonrpc": "2.0", "id": 2, "result": {"tools": [{"name": "a"}]}}))

    again, out = _front(tmp_path)
    forwarded = again._question(_line({"id": "a", "method": "initialize", "params": INIT}))
    assert forwarded is not None and json.loads(forwarded)["id"] == REPLAY_ID  # the SDK still sees the handshake
    assert not again.wait_first_answers(0)  # the list is stored too: nothing loads before it went out
    assert again._question(_line({"id": "b", "method": "tools/list"})) is None
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert answers == [
        {"jsonrpc": "2.0", "id": "a", "result": {"serverInfo": {"name": "x"}}},
        {"jsonrpc": "2.0", "id": "b", "result": {"tools": [{"name": "a"}]}},
    ]
    assert not again._from_server(REPLAY_ID, "{}")  # the SDK's answer to the replay is dropped
    assert again._from_server("c", "{}")  # anything else goes out


def test_other_clients_keys_and_calls_are_never_answered_from_the_store(tmp_path: Path) -> None:
    front, _ = _front(tmp_path)
    front._question(_line({"id": 1, "method": "initialize", "params": INIT}))
    front._from_server(1, json.dumps({"id": 1, "result": {"ok": 1}}))
    front._question(_line({"id": 2, "method": "tools/list"}))
    front._from_server(2, json.dumps({"id": 2, "result": {"tools": []}}))

    other_key, out = _front(tmp_path, key="changed")  # other code, settings or command line
    init = _line({"id": 1, "method": "initialize", "params": INIT})
    assert other_key._question(init) == init and out.getvalue() == b""

    other_client, out = _front(tmp_path)
    init = _line({"id": 1, "method": "initialize", "params": {**INIT, "protocolVersion": "2025-06-18"}})
    assert other_client._question(init) == init
    listed = _line({"id": 2, "method": "tools/list"})
    assert other_client._question(listed) == listed  # the list is keyed by the handshake too
    call = _line({"id": 3, "method": "tools/call", "params": {"name": "read_note"}})
    assert other_client._question(call) == call
    assert other_client._question(b"not json\n") == b"not json\n"
    assert out.getvalue() == b""


def test_each_key_has_its_own_store_and_only_the_newest_few_are_kept(tmp_path: Path) -> None:
    for n in range(8):
        front, _ = _front(tmp_path, key=f"{n:016x}")
        front._question(_line({"id": 1, "method": "tools/list"}))
        front._from_server(1, json.dumps({"id": 1, "result": {"tools": [n]}}))
    kept = sorted(p.name for p in tmp_path.glob("stdio-answers-*.json"))
    assert len(kept) == 5 and f"stdio-answers-{7:016x}.json" in kept


def _settings_of(argv: list[str]) -> Settings:
    target = next((a for a in argv[1:] if not a.startswith("-")), None)
    return load_settings(target)


def test_the_early_front_finds_the_folder_the_settings_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make_vault: Callable[..., Path]
) -> None:
    vault = make_vault()
    env = dict(os.environ)
    argv = ["stdio", str(vault)]
    assert stdio_target.cache_folder(stdio_target.target_of(argv, env) or "", env) == str(
        _settings_of(argv).cache_dir()
    )

    config = tmp_path / "served.toml"
    config.write_text(f'[storage]\ncache_dir = "cache-here"\n[[vaults]]\nid = "v"\npath = "{vault}"\n')
    argv = ["stdio", str(config)]
    assert stdio_target.cache_folder(str(config), env) == str(_settings_of(argv).cache_dir())
    assert stdio_target.cache_folder(str(config), env) == str(tmp_path / "cache-here")

    monkeypatch.setenv("VAULTGATE_STORAGE__CACHE_DIR", str(tmp_path / "from-env"))
    env = dict(os.environ)
    assert stdio_target.cache_folder(str(vault), env) == str(_settings_of(["stdio", str(vault)]).cache_dir())


def test_the_early_front_reads_only_the_stdio_command_line(monkeypatch: pytest.MonkeyPatch) -> None:
    env: dict[str, str] = {}
    assert stdio_target.target_of(["stdio", "/v"], env) == "/v"
    assert stdio_target.target_of(["stdio", "/v", "--tool-facade", "triad"], env) == "/v"
    assert stdio_target.target_of(["stdio", "--tool-facade=lean", "/v"], env) == "/v"
    for argv in (["stdio", "--help"], ["stdio", "/v", "-h"], ["stdio", "/a", "/b"], ["serve", "/v"], ["stdio"]):
        assert stdio_target.target_of(argv, env) is None  # the full parser answers these
    assert stdio_target.target_of(["stdio"], {"VAULTGATE_CONFIG": "/c.toml"}) == "/c.toml"


def test_the_start_up_key_moves_with_whatever_the_settings_are_made_of(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[[vaults]]\nid = "a"\npath = "."\n')
    argv = ["stdio", str(config)]
    base = stdio_target.startup_key(argv, {})
    assert stdio_target.startup_key(argv, {}) == base
    assert stdio_target.startup_key(argv, {"VAULTGATE_TOOL_FACADE__MODE": "full"}) != base
    assert stdio_target.startup_key(argv, {"UNRELATED": "x"}) == base
    assert stdio_target.startup_key([*argv, "--tool-facade", "triad"], {}) != base
    config.write_text('[[vaults]]\nid = "b"\npath = "."\n')
    assert stdio_target.startup_key(argv, {}) != base


def test_answers_stored_under_other_effective_settings_are_dropped(tmp_path: Path) -> None:
    front, _ = _front(tmp_path)
    front.check_settings('{"a": 1}')
    front._question(_line({"id": 1, "method": "tools/list"}))
    front._from_server(1, json.dumps({"id": 1, "result": {"tools": []}}))

    same, out = _front(tmp_path)
    same.check_settings('{"a": 1}')
    assert same._question(_line({"id": 2, "method": "tools/list"})) is None and out.getvalue()

    changed, out = _front(tmp_path)
    changed.check_settings('{"a": 2}')  # the key should have differed: never trust the store then
    listed = _line({"id": 3, "method": "tools/list"})
    assert changed._question(listed) == listed and out.getvalue() == b""


def test_an_empty_store_answers_initialize_from_the_shipped_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shipped_initialize, "SHIPPED", REAL_SHIPPED)
    shipped = shipped_initialize.ShippedInitialize()
    front, out = _front(tmp_path)
    forwarded = front._question(_line({"id": 7, "method": "initialize", "params": INIT}))
    assert forwarded is not None and json.loads(forwarded)["id"] == REPLAY_ID  # the SDK still sees the handshake
    expected = b'{"jsonrpc":"2.0","id":7,"result":%s}\n' % shipped.answers["2025-11-25"].encode()
    assert out.getvalue() == expected
    assert front._handshake == "2025-11-25" and front.answered == 1
    assert front.wait_first_answers(0)  # no stored list either: the server loads at once
    listed = _line({"id": 8, "method": "tools/list"})
    assert front._question(listed) == listed  # the list depends on the settings: the SDK answers it

    newer, out = _front(tmp_path)  # a version past the handshake era: the SDK's latest handshake one
    newer._question(_line({"id": 1, "method": "initialize", "params": {**INIT, "protocolVersion": "2099-01-01"}}))
    assert json.loads(out.getvalue())["result"]["protocolVersion"] == shipped.versions[-1]


@pytest.mark.parametrize(
    "params",
    [
        {**INIT, "capabilities": {"roots": {"listChanged": True}}},  # nested values: the SDK validates them
        {**INIT, "clientInfo": {"name": "t"}},
        {**INIT, "clientInfo": {"name": "t", "version": "1", "icons": []}},
        {**INIT, "protocolVersion": 20251125},
        {**INIT, "_meta": {}},
        None,
    ],
)
def test_initialize_params_of_another_shape_are_left_to_the_sdk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, params: object
) -> None:
    monkeypatch.setattr(shipped_initialize, "SHIPPED", REAL_SHIPPED)
    front, out = _front(tmp_path)
    init = _line({"id": 1, "method": "initialize", "params": params})
    assert front._question(init) == init and out.getvalue() == b""


def test_shipped_answers_of_another_sdk_or_vaultgate_are_not_used(tmp_path: Path) -> None:
    table = json.loads(Path(REAL_SHIPPED).read_text(encoding="utf-8"))
    for field, value in (("sdk", ["mcp-0.0.1.dist-info"]), ("vaultgate", "0.0.0")):
        path = tmp_path / f"{field}.json"
        path.write_text(json.dumps({**table, field: value}), encoding="utf-8")
        assert shipped_initialize.ShippedInitialize(str(path)).answer(INIT) is None
    assert shipped_initialize.ShippedInitialize(REAL_SHIPPED).answer(INIT) is not None


def _shipped_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    """A shipped `tools/list` table made under the settings "S" for the 2025-11-25 handshake."""
    listed: dict[str, object] = {"tools": [{"name": "a", "description": "é"}]}
    table = {
        "vaultgate": VERSION,
        "sdk": shipped_initialize.sdk_distributions(),
        "settings": "S",
        "versions": {"2025-11-25": 0},
        "lists": [listed],
    }
    path = tmp_path / "tools-list.json"
    path.write_text(json.dumps(table), encoding="utf-8")
    monkeypatch.setattr(shipped_tools_list, "SHIPPED", str(path))
    monkeypatch.setattr(shipped_initialize, "SHIPPED", REAL_SHIPPED)
    return listed


def test_an_empty_store_answers_tools_list_from_the_package_once_the_settings_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    listed = _shipped_list(tmp_path, monkeypatch)
    front, out = _front(tmp_path / "cache")
    front._question(_line({"id": 1, "method": "initialize", "params": INIT}))
    waiting = _line({"id": 2, "method": "tools/list", "params": {}})
    front._on_line(waiting)
    assert front._pending[-1] == waiting  # the settings are not loaded yet: it waits
    front.settings_loaded("S")
    assert waiting not in front._pending and front._misses == {}
    answer = out.getvalue().splitlines()[-1]
    assert (
        answer
        == b'{"jsonrpc":"2.0","id":2,"result":%s}'
        % json.dumps(listed, separators=(",", ":"), ensure_ascii=False).encode()
    )
    assert front._question(_line({"id": 3, "method": "tools/list"})) is None  # asked again: answered at once
    assert front.answered == 3

    again, out = _front(tmp_path / "cache")  # recorded for the next start, which answers it from its store
    again._question(_line({"id": 1, "method": "initialize", "params": INIT}))
    assert again._question(_line({"id": 2, "method": "tools/list", "params": {}})) is None
    assert json.loads(out.getvalue().splitlines()[-1])["result"] == listed


@pytest.mark.parametrize(
    ("settings", "version", "params"),
    [
        ("other", "2025-11-25", {}),  # other facade or visibility settings
        ("S", "2025-06-18", {}),  # a handshake the table lacks
        ("S", "2025-11-25", {"cursor": "0"}),
    ],
)
def test_a_tools_list_the_package_did_not_make_is_left_to_the_sdk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settings: str, version: str, params: object
) -> None:
    _shipped_list(tmp_path, monkeypatch)
    front, out = _front(tmp_path / "cache")
    front._question(_line({"id": 1, "method": "initialize", "params": {**INIT, "protocolVersion": version}}))
    waiting = _line({"id": 2, "method": "tools/list", "params": params})
    front._on_line(waiting)
    front.settings_loaded(settings)
    assert front._pending[-1] == waiting and len(out.getvalue().splitlines()) == 1  # only the `initialize` answer
    assert front._question(waiting) == waiting


def test_the_tool_list_key_is_the_facade_and_visibility_sections(make_vault: Callable[..., Path]) -> None:
    root = make_vault()
    base = shipped_tools_list.list_settings(load_settings(root))
    assert shipped_tools_list.list_settings(load_settings(root, embeddings={"provider": "none"})) == base
    assert shipped_tools_list.list_settings(load_settings(root, tool_facade={"mode": "flat"})) != base
    assert shipped_tools_list.list_settings(load_settings(root, tool_visibility={"hidden": ["notes"]})) != base


def test_lines_before_the_attach_are_kept_bounded_and_none_is_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client that floods stdin before the server has loaded: the lines kept for the session
    grew without bound (P1 s80 item 2). Past `MAX_PENDING` bytes the reader waits, and the
    client's writes with it; once the lines are taken (here a stop refuses them) it reads on."""
    monkeypatch.setattr(stdin_lines, "MAX_PENDING", 256 * 1024, raising=False)
    front, out = _front(tmp_path)
    read, write = os.pipe()
    lines = [_line({"id": n, "method": "ping", "params": {"pad": "x" * 16_000}}) for n in range(256)]  # ids unique:
    peak = 0  # a request reusing the id of one in flight is refused at once (`service.protocol.stdio_ids`)

    def on_line(data: bytes) -> None:
        nonlocal peak
        front._on_line(data)
        peak = max(peak, sum(map(len, front._pending)))

    def flood() -> None:
        for line in lines:  # 4 MB
            os.write(write, line)
        os.close(write)

    front.lines = StdinLines(read, on_line, front._on_eof)
    front.lines.start()
    writer = threading.Thread(target=flood, daemon=True)
    writer.start()
    deadline = time.monotonic() + 60
    while peak < 256 * 1024 and time.monotonic() < deadline:
        time.sleep(0.01)
    front.refuse(lambda msg: b'{"refused":1}')  # the lines kept are answered; from now on at once
    writer.join(60)
    while not front._eof and time.monotonic() < deadline + 60:
        time.sleep(0.01)
    os.close(read)
    assert front._eof and not writer.is_alive()
    assert 256 * 1024 <= peak <= 256 * 1024 + max(map(len, lines))
    assert out.getvalue().count(b'{"refused":1}\n') == 256  # every request answered


def test_a_ping_after_a_handshake_initialize_is_answered_before_the_server_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before the attach a `ping` waited for the whole server to load (~0.5-1 s at a start) and
    made it load at once; once `initialize` was answered in the handshake era, a bare one is
    answered here with the SDK's bytes. Before `initialize`, or with params the SDK checks, it is
    still the SDK's."""
    monkeypatch.setattr(shipped_initialize, "SHIPPED", REAL_SHIPPED)
    front, out = _front(tmp_path)
    early = _line({"id": 1, "method": "ping"})
    assert front._question(early) == early and out.getvalue() == b""
    front._question(_line({"id": 7, "method": "initialize", "params": INIT}))
    assert front._handshake == "2025-11-25"
    out.seek(0)
    out.truncate()
    assert front._question(_line({"id": 9, "method": "ping"})) is None
    assert front._question(_line({"id": "p", "method": "ping", "params": {}})) is None
    assert out.getvalue() == b'{"jsonrpc":"2.0","id":9,"result":{}}\n{"jsonrpc":"2.0","id":"p","result":{}}\n'
    for kept in ({"id": 10, "method": "ping", "params": {"_meta": {"a": 1}}}, {"id": 11, "method": "ping", "x": 1}):
        assert front._question(_line(kept)) == _line(kept)
    modern, out = _front(tmp_path)
    modern._question(_line({"id": 7, "method": "initialize", "params": INIT}))
    modern._modern = True  # a 2026-07-28 connection: no `ping` there, its SDK answers
    assert modern._question(_line({"id": 9, "method": "ping"})) == _line({"id": 9, "method": "ping"})


@pytest.mark.parametrize("rid", ["é-ü", "日本", "😀", "a\u2028b", "\x7f", "tab\tand\u0001"])
def test_an_answer_before_the_attach_writes_its_id_as_the_sdk_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rid: str
) -> None:
    """The front's answers before the attach (a ping, a stored `tools/list`, the shipped
    `initialize`) wrote a string id with `json.dumps`' ASCII escapes ("\\u00e9"), where the SDK
    and the front after the attach (`FastCalls`) write it as UTF-8: the same id, other bytes."""
    from mcp_types import JSONRPCResponse
    from pydantic_core import to_json

    monkeypatch.setattr(shipped_initialize, "SHIPPED", REAL_SHIPPED)
    front, out = _front(tmp_path)
    front._question(_line({"id": rid, "method": "initialize", "params": INIT}))
    assert out.getvalue().startswith(b'{"jsonrpc":"2.0","id":%s,"result":' % to_json(rid))
    out.seek(0)
    out.truncate()
    assert front._question(_line({"id": rid, "method": "ping"})) is None
    sdk = JSONRPCResponse(jsonrpc="2.0", id=rid, result={}).model_dump_json(by_alias=True, exclude_unset=True)
    assert out.getvalue() == sdk.encode() + b"\n"
