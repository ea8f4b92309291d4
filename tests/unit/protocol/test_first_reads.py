"""The first reads of a stdio start (service/protocol/first_reads.py) answer exactly as the
dispatch chain does, or leave the call to it: a matrix of calls on one vault, hostile ones
included, each asked of both; and what they rely on agrees with the settings."""

from __future__ import annotations

import json
import os
import unicodedata
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from pydantic_core import to_json

from service.protocol import first_reads
from service.protocol.fast_path import FastPath, PlainCall, result_body
from service.protocol.first_reads import MAX_CALLS, FirstReads, facts_of
from service.storage.driver import driver
from service.vault.paths import ALWAYS_HIDDEN
from tests.conftest import Harness, settings_for, started

HANDSHAKE = "2025-06-18"
BIG = 40_000  # bytes of the note over the byte budget the matrix runs under
LIMIT = 30_000

FILES: dict[str, str | bytes] = {
    "Welcome.md": "# Welcome\n\nSee [[Plan]] and [[Folder/Deep Note|deep]]. #start\n",
    "Plan.md": "---\ntags: [work, q3]\naliases: [Roadmap]\nratio: 0.25\nwhen: 2026-11-28\nnested: {a: [1, 2]}\n---\n"
    "# Plan\n\n## Goals\n\n- ship [[Welcome]]\n",
    "Folder/Deep Note.md": "# Deep\n\ntext #deep/tag\n",
    "Café.md": "# Café\n\nné\n",
    "Secret.md": "---\npassword: hunter2\n---\napi_key = sk-live-0123456789abcdef0123456789abcdef\n",
    "Odd.md": 'tab\there "quoted" back\\slash \x01 \u2028 \U0001f600 end',
    ".obsidian/Hidden.md": "# hidden\n",
    ".trash/Old.md": "# old\n",
    "Folder/.Dot.md": "# dot\n",
    "Broken.md": "---\n: : bad\n  - [\n---\nbody\n",
    "Latin1.md": b"caf\xe9 \xe0 la cr\xe8me\n",
    "Big.md": "# Big\n\n" + "word " * (BIG // 5),
    "Empty.md": "",
}

ANSWERED = [  # answered before the chain is built, as the chain answers them
    "Welcome",
    "Welcome.md",
    "Plan",
    "Plan.md",
    "Folder/Deep Note",
    "Folder/Deep Note.md",
    "Café",
    unicodedata.normalize("NFD", "Café"),
    "Secret",
    "Odd",
    "Empty",
]
ANSWERED_HERE = set(ANSWERED)
PATHS = [
    *ANSWERED,
    # answered by the chain: its resolution by name, its refusals, its checks past the path
    "welcome",
    "Roadmap",
    "Deep Note",
    "[[Welcome]]",
    "![[Welcome]]",
    "Welcome#Welcome",
    "Plan#Goals",
    "Welcome|shown",
    " Welcome",
    "Welcome ",
    ".obsidian/Hidden",
    ".OBSIDIAN/Hidden",
    ".trash/Old",
    ".vaultgate/cache",
    "../outside/secret",
    "Folder/../Welcome",
    "%2e%2e/outside/secret",
    "..%2Foutside%2Fsecret",
    "．．/outside/secret",
    "/etc/passwd",
    "~/notes",
    "C:/x",
    "a\\b",
    "nul\x00",
    "Out",
    "LinkDir/secret",
    "Inner",
    "InnerDir/Deep Note",
    "Nope",
    "Folder",
    "Welcome/",  # a folder's path: path_invalid, not Welcome.md
    "Folder/Deep Note/",
    "Folder/.Dot",  # a name the index skips: path_invalid
    "Broken",
    "Latin1",
    "Big",
    "",
]
OTHER_CALLS: list[dict[str, Any]] = [
    {"name": "read_note", "arguments": {"path": "Welcome", "part": "body"}},
    {"name": "read_note", "arguments": {"path": "Welcome", "heading": ["Welcome"]}},
    {"name": "read_note", "arguments": {"path": 5}},
    {"name": "read_note", "arguments": {"path": ["Welcome"]}},
    {"name": "read_note", "arguments": {}},
    {"name": "read_note"},
    {"name": "read_note", "arguments": {"path": "Welcome"}, "_meta": {"vaultgate/x": 1}},
    {"name": "read_note", "arguments": {"path": "Welcome", "vault": "main"}},
    {"name": "read_notes", "arguments": {"paths": ["Welcome"]}},
    {"name": "note_info", "arguments": {"path": "Welcome"}},
    {"name": "delete_note", "arguments": {"path": "Welcome"}},
    {"name": "no_such_tool", "arguments": {"path": "Welcome"}},
]


def _vault(make_vault: Callable[..., Path]) -> Path:
    root = make_vault(FILES, name="vault")
    outside = root.parent / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# outside the vault\n", encoding="utf-8")
    os.symlink(outside / "secret.md", root / "Out.md")
    os.symlink(outside, root / "LinkDir")
    os.symlink(root / "Welcome.md", root / "Inner.md")
    os.symlink(root / "Folder", root / "InnerDir")
    return root


def _request(rid: Any, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}


@asynccontextmanager
async def _first_reads(root: Path, **overrides: Any) -> AsyncIterator[tuple[Harness, FirstReads]]:
    """A server started on `root` and indexed, and first reads made from the facts it recorded."""
    async with started(root, **overrides) as vg:
        await vg.indexed()
        facts = facts_of(vg.app)
        assert facts is not None
        yield vg, FirstReads(facts)


READ_WELCOME = _request(1, {"name": "read_note", "arguments": {"path": "Welcome"}})


async def _chain(vg: Harness, params: dict[str, Any], rid: Any) -> dict[str, Any]:
    """What the stdio fast path answers (the chain, as `result_body` encodes it)."""
    path = FastPath(vg.app.dispatcher, None, vg.app.client_logs)
    call = PlainCall(params["name"], params.get("arguments"), {})
    result = await path.run(call, rid)
    answer: dict[str, Any] = json.loads(to_json(result_body(result, HANDSHAKE)))
    return answer


async def test_first_reads_answer_as_the_chain_does_or_leave_the_call_to_it(
    make_vault: Callable[..., Path],
) -> None:
    root = _vault(make_vault)
    async with started(root, governor={"max_response_bytes": LIMIT}) as vg:
        await vg.indexed()
        facts = facts_of(vg.app)
        assert facts is not None
        answered: set[str] = set()
        for n, path in enumerate(PATHS):
            reads = FirstReads(facts)  # a fresh start for each call: the per-start cap is not the subject
            params = {"name": "read_note", "arguments": {"path": path}}
            line = reads.answer(_request(n, params), HANDSHAKE)
            chain = await _chain(vg, params, n)
            if line is None:
                continue
            answered.add(path)
            sent = json.loads(line)
            assert sent == {"jsonrpc": "2.0", "id": n, "result": chain}, path
            # byte for byte as the chain's encoder writes it, too
            assert line == b'{"jsonrpc":"2.0","id":%d,"result":%s}\n' % (n, to_json(chain)), path
        assert answered == ANSWERED_HERE
        reads = FirstReads(facts)
        for n, params in enumerate(OTHER_CALLS):
            assert reads.answer(_request(n, params), HANDSHAKE) is None, params
        for rid in (True, None, 1.5, 2**63, [1]):
            assert (
                reads.answer(_request(rid, {"name": "read_note", "arguments": {"path": "Welcome"}}), HANDSHAKE) is None
            )
        envelope = {**_request(1, {"name": "read_note", "arguments": {"path": "Welcome"}}), "extra": 1}
        assert reads.answer(envelope, HANDSHAKE) is None
        reads.close()


async def test_a_note_over_the_answers_budget_is_left_to_the_chain_unread(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before, its bytes were read whole (a 600 MB note: 600 MB and its text) only to be found over
    # the budget; the chain then refuses it before reading (`[limits] max_note_bytes`) or reads a part.
    root = make_vault({"Big.md": "# Big\n\n" + "word " * (BIG // 5), "Welcome.md": "# Welcome\n"})
    async with _first_reads(root, governor={"max_response_bytes": LIMIT}) as (_, reads):
        got: list[int] = []
        real = first_reads.read_file

        def counted(*args: Any) -> Any:
            data, st = real(*args)
            got.append(len(data))
            return data, st

        monkeypatch.setattr(first_reads, "read_file", counted)
        assert reads.answer(_request(1, {"name": "read_note", "arguments": {"path": "Big"}}), HANDSHAKE) is None
        assert got == []  # refused from the open file's size, nothing read
        assert reads.answer(_request(2, {"name": "read_note", "arguments": {"path": "Welcome"}}), HANDSHAKE)
        assert got == [len("# Welcome\n")]
        reads.close()


async def test_a_note_edited_since_it_was_indexed_is_left_to_the_chain(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Welcome.md": "# Welcome\n"})
    async with started(root) as vg:
        await vg.indexed()
        facts = facts_of(vg.app)
    assert facts is not None
    request = _request(1, {"name": "read_note", "arguments": {"path": "Welcome"}})
    assert FirstReads(facts).answer(request, HANDSHAKE) is not None
    (root / "Welcome.md").write_text("# Welcome, edited while no server ran\n", encoding="utf-8")
    assert FirstReads(facts).answer(request, HANDSHAKE) is None  # the index has no row for these bytes


async def test_first_reads_read_the_index_with_the_servers_own_sqlite_library(make_vault: Callable[..., Path]) -> None:
    """Closing a handle of another SQLite library on the index file would drop the locks of the
    server's connections (POSIX locks are the process's): the reader is the driver's."""
    async with _first_reads(make_vault({"Welcome.md": "# Welcome\n"})) as (_, reads):
        assert reads.answer(READ_WELCOME, HANDSHAKE)
        assert isinstance(reads._db, driver().Connection)
        reads.close()


async def test_first_reads_stop_below_the_read_throttle_burst(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Welcome.md": "# Welcome\n"})
    # a token every 100 minutes: no refill between the calls, however slow the machine (a loaded
    # CI run took long enough to refill one at the default rate)
    slow = {"burst": 3, "rate_per_minute": 0.01}
    async with _first_reads(root, throttle={"classes": {"read": slow}}) as (vg, reads):
        assert reads.facts["calls"] == 2
        assert [reads.answer(READ_WELCOME, HANDSHAKE) is not None for _ in range(3)] == [True, True, False]
        # replayed through the chain: two of the bucket's three tokens are taken, as if the chain
        # had answered them, and the answers agree
        path = FastPath(vg.app.dispatcher, None, vg.app.client_logs)  # as the stdio caller
        assert await reads.replay(path) == 0
        call = PlainCall("read_note", {"path": "Welcome"}, {})
        assert not (await path.run(call, 2)).is_error
        assert (await path.run(call, 3)).error_code == "throttled"


async def test_a_first_burst_of_fifty_reads_is_answered_whole_and_replayed(make_vault: Callable[..., Path]) -> None:
    """An agent's first turn reading a few dozen notes one after another: none of them waits for
    the build (~0.4 s behind the ninth read when only eight were answered here)."""
    async with _first_reads(make_vault({"Welcome.md": "# Welcome\n"})) as (vg, reads):
        assert all(reads.answer(READ_WELCOME, HANDSHAKE) is not None for _ in range(50))
        assert await reads.replay(FastPath(vg.app.dispatcher, None, vg.app.client_logs)) == 0
        assert reads.held == 0 and not reads.answered


async def test_first_reads_stop_once_the_answers_kept_for_the_replay_reach_their_bound(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    async with _first_reads(make_vault({"Welcome.md": "# Welcome\n\n" + "word " * 200})) as (vg, reads):
        assert reads.answer(READ_WELCOME, HANDSHAKE) is not None
        monkeypatch.setattr(first_reads, "MAX_HELD", 2 * reads.held + 10)
        assert [reads.answer(READ_WELCOME, HANDSHAKE) is not None for _ in range(2)] == [True, False]
        assert len(reads.answered) == 2
        assert await reads.replay(FastPath(vg.app.dispatcher, None, vg.app.client_logs)) == 0


async def test_what_first_reads_rely_on_is_what_the_settings_say(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Welcome.md": "# Welcome\n"})
    settings = settings_for(root)
    async with started(root) as vg:
        facts = facts_of(vg.app)
    assert facts is not None
    (vault,) = settings.vaults
    assert facts["vault"] == vault.id == settings.default_vault_id
    assert facts["root"] == str(vault.path.resolve())
    assert facts["name"] == vault.display_name
    assert facts["db"] == str(settings.cache_dir() / "cache.db")
    assert facts["limit"] == settings.governor.max_response_bytes
    assert facts["refuse_device_names"] == settings.writes.refuse_device_names
    assert set(facts["hidden"]) >= {*ALWAYS_HIDDEN, settings.writes.trash_folder.lower()}
    assert facts["calls"] == min(MAX_CALLS, settings.throttle.classes["read"].burst - 1)  # type: ignore[index]


@pytest.mark.parametrize(
    "overrides",
    [
        {"acl": {"prefix_rules": [{"path": "Private", "read": "deny"}]}},
        {"acl": {"read_paths": ["Public/**"]}},
        {"acl": {"default_deny": True}},
        {"tool_facade": {"mode": "domain"}},
        {"tool_visibility": {"disabled": ["read_note"]}},
        {"tool_visibility": {"hidden": ["read_note"]}},
        {"protocol": {"fast_calls": False}},
        {"throttle": {"classes": {"read": {"burst": 1}}}},
    ],
    ids=["acl-rule", "read-paths", "default-deny", "facade", "disabled", "hidden", "no-fast-calls", "burst-1"],
)
async def test_no_first_reads_where_the_settings_ask_more_of_a_read(
    make_vault: Callable[..., Path], overrides: dict[str, Any]
) -> None:
    async with started(make_vault({"Welcome.md": "# Welcome\n"}), **overrides) as vg:
        assert facts_of(vg.app) is None


async def test_no_first_reads_with_two_vaults(make_vault: Callable[..., Path], tmp_path: Path) -> None:
    one, two = make_vault({"A.md": "a\n"}), make_vault({"B.md": "b\n"})
    vaults = [{"id": "one", "path": str(one)}, {"id": "two", "path": str(two)}]
    async with started(one, vaults=vaults) as vg:
        assert facts_of(vg.app) is None


def test_stored_facts_of_another_root_or_version_are_not_used(tmp_path: Path) -> None:
    facts = {"version": 1, "vault": "main", "root": str(tmp_path), "name": "v", "hidden": [], "db": "x"}
    facts |= {"refuse_device_names": True, "limit": 1000, "calls": 1}
    assert FirstReads.from_store(facts, str(tmp_path)) is not None
    assert FirstReads.from_store(facts, str(tmp_path / "other")) is None
    assert FirstReads.from_store({**facts, "version": 0}, str(tmp_path)) is None
    assert FirstReads.from_store({**facts, "root": None}, str(tmp_path)) is None
    assert FirstReads.from_store(facts, None) is None


async def test_a_first_read_writes_a_string_id_as_the_chain_does(make_vault: Callable[..., Path]) -> None:
    """A non-ASCII string id was written with `json.dumps`' escapes ("\\u00e9"): the SDK and the
    fast path write it as UTF-8."""
    async with _first_reads(_vault(make_vault)) as (vg, reads):
        for rid in ("é-ü", "日本😀"):
            line = reads.answer(_request(rid, READ_WELCOME["params"]), HANDSHAKE)
            assert line is not None
            chain = await _chain(vg, READ_WELCOME["params"], rid)
            assert line == b'{"jsonrpc":"2.0","id":%s,"result":%s}\n' % (to_json(rid), to_json(chain))
        reads.close()
