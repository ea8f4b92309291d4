"""The adversarial vault: every hostile file kind at once, indexed at start, then every read tool
called over it — through the dispatch chain and on a real uvicorn server with the SDK client.

Fronts: the dispatch chain in-process, HTTP with the SDK's Streamable HTTP client on a real
uvicorn server (fast path on and off), and a `vaultgate stdio` process with the SDK's stdio client.

The vault holds notes in Latin-1 (cp1252), UTF-16 and broken UTF-8; a folder and files whose
names are not UTF-8; FIFOs named like a note, an attachment, a canvas and a base; a YAML alias bomb (half a
kilobyte of frontmatter standing for ~390 million values); PNG headers that declare huge images
(30000x30000, 9000x9000); a PDF that is only a header; and, once the
server runs, a symlink to a folder outside the vault appears. What must hold:

- the index becomes ready within a bound, with every readable note in it (the hostile ones
  read with their encoding or left out, and reported in `index_status.file_warnings`);
- every call of every read tool answers a success or a structured error other than
  `internal_error`, and the server stays up (a last call succeeds);
- the rest of the vault is searchable, the text outside the vault is not;
- the process's peak memory during the calls stays under `MEMORY_BOUND_MB` above its start.

`READ_CALLS` names the arguments for every read-only tool; a tool added to the registry without
an entry fails `test_every_read_tool_has_calls_in_the_suite`. The image and frontmatter bombs are
bounded by the budgets (`service.budget`, tests/reliability/test_budgets.py has their own family);
here they sit among the other hostile files.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import struct
import sys
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from service.indexer.runner import VaultIndexer
from service.tools.registry import build_registry
from tests.conftest import Harness, e2e, started

WITHIN = 60.0
MEMORY_BOUND_MB = 300  # peak RSS growth allowed while every read tool runs over the vault
REGISTRY = build_registry()


def _png(width: int, height: int) -> bytes:
    """A PNG whose header declares `width` x `height` (the pixel data is a few bytes)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b"")
    )


def _alias_bomb(levels: int, width: int) -> str:
    """Frontmatter whose aliases expand to width**(levels + 1) values (8 levels of 9: half a
    kilobyte that stands for ~390 million values; the frontmatter budget refuses it)."""
    lines = ["a0: &a0 [" + ", ".join(["x"] * width) + "]"]
    for n in range(1, levels + 1):
        lines.append(f"a{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * width) + "]")
    return "---\n" + "\n".join(lines) + "\n---\n# Bomb\n\nbombword\n"


def _lz_bomb(codes: int) -> str:
    """An Excalidraw compressed-json block (LZ-string Base64) of `codes` codes, each naming the
    entry the one before made, so each repeats one character more: ~codes**2 / 2 characters (6,000
    codes, 13 KB: 18 million characters, past [limits] max_value_bytes)."""
    bits: list[int] = [0, 0] + [(ord("a") >> i) & 1 for i in range(8)]  # a first literal, 8-bit
    width, enlarge = 3, 4
    for code in [*range(4, 4 + codes), 2]:  # 2 ends the stream
        bits += [(code >> i) & 1 for i in range(width)]
        enlarge -= 1
        if enlarge == 0:
            enlarge, width = 1 << width, width + 1
    bits += [0] * (-len(bits) % 6)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    digits = "".join(alphabet[int("".join(map(str, bits[i : i + 6])), 2)] for i in range(0, len(bits), 6))
    return digits + "=" * (-len(digits) % 4)


TEXT_FILES: dict[str, str | bytes] = {
    "Welcome.md": "---\ntags: [start]\nstatus: active\n---\n# Welcome\n\nwelcomeword. See [[Cafe]], [[Wide]], "
    "[[Projects/Plan]] and ![[Media/huge.png]]. #intro\n",
    "Projects/Plan.md": "---\npriority: 2\n---\n# Plan\n\n## Steps\n- [ ] write planword\n- [x] read\n\n"
    "Back to [[Welcome]].\n\n```dataview\nLIST FROM #start\n```\n",
    "Cafe.md": b"---\ntitle: Caf\xe9\n---\n# Caf\xe9\n\nna\xefve r\xe9sum\xe9 latinword [[Welcome]]\n",
    "Wide.md": "# Wide\n\nwidewords über [[Welcome]]\n".encode("utf-16"),
    "Broken.md": "# Broken\n\nGrüße brokenword ".encode() + b"\xe2\x82" + " schön\n".encode(),
    "Bomb.md": _alias_bomb(8, 9),
    "Drawings/Lz.excalidraw.md": "---\nexcalidraw-plugin: parsed\n---\n# Excalidraw Data\n\n## Text Elements\n"
    "lzword ^Lzbomb01\n\n%%\n## Drawing\n```compressed-json\n" + _lz_bomb(6000) + "\n```\n%%",
    "Board.canvas": '{"nodes":[{"id":"a","type":"text","text":"canvasword [[Welcome]]","x":0,"y":0,'
    '"width":10,"height":10}],"edges":[]}',
    "Tasks.base": "views:\n  - type: table\n    name: All\n",
    "Media/big.png": _png(9000, 9000),
    "Media/huge.png": _png(30000, 30000),
    "Media/scan.pdf": b"%PDF-1.7\n1 0 obj << /Type /Pages /Count 999999999 >> endobj\n%%EOF\n",
    "Templates/Daily.md": "# {{date}}\n",
}
BAD_NAMES = (b"Caf\xe9/r\xe9sum\xe9.md", b"bad\xff.md", b"Media/photo\xe9.png")
FIFOS = ("Pipe.md", "Media/pipe.png", "Projects/Queue.md", "Pipe.canvas", "Pipe.base")
LINKED = "Linked"  # a symlink to a folder outside the vault, made while the server runs

# Paths every path-taking tool is called with: a plain note, each hostile kind that is a file,
# a FIFO, the symlinked folder's note, and the name a non-UTF-8 file would get if guessed.
NOTE_PATHS = ["Welcome", "Cafe", "Wide.md", "Broken", "Bomb", "Pipe.md", "Projects/Queue", "Linked/Secret", "bad.md"]
FILE_PATHS = ["Media/huge.png", "Media/big.png", "Media/scan.pdf", "Media/pipe.png", "Tasks.base", "Board.canvas"]
FILE_PATHS.append("Cafe.md")
FOLDERS = ["", "Projects", "Media", "Linked"]


def _each(key: str, values: list[str], **extra: Any) -> list[dict[str, Any]]:
    return [{key: value, **extra} for value in values]


READ_CALLS: dict[str, list[dict[str, Any]]] = {
    "read_note": _each("path", NOTE_PATHS) + [{"path": "Cafe", "part": "frontmatter"}],
    "read_notes": [{"paths": NOTE_PATHS}],
    "note_info": _each("path", NOTE_PATHS),
    "get_outline": _each("path", NOTE_PATHS) + [{"path": "Cafe", "max_level": 1}],
    "list_notes": _each("folder", FOLDERS) + _each("folder", FOLDERS, include_attachments=True),
    "list_folders": _each("folder", FOLDERS),
    "get_backlinks": _each("path", NOTE_PATHS),
    "get_outlinks": _each("path", NOTE_PATHS),
    "graph_neighbors": _each("path", NOTE_PATHS),
    "find_broken_links": [{}],
    "find_orphans": [{}],
    "graphrag_query": _each("query", ["latinword", "welcome"]),
    "central_notes": [{}, {"measure": "betweenness"}] + _each("folder", FOLDERS),
    "shortest_path": _each("source", NOTE_PATHS, target="Welcome"),
    "find_communities": [{"min_size": 1}],
    "suggest_links": [{}] + _each("path", NOTE_PATHS, related=5),
    "get_properties": _each("path", NOTE_PATHS),
    "list_tags": [{}],
    "list_properties": [{}],
    "property_values": _each("key", ["title", "a4", "status"]),
    "search_text": _each("query", ["latinword", "widewords", "brokenword", "bombword", "outsideword", "résumé"]),
    "search_regex": _each("pattern", ["r.sum", "Caf.", "\\bx\\b"]),
    "search_tags": [{"tags": ["start"]}, {"tags": ["intro"]}],
    "search_properties": [{"filters": [{"key": "title", "op": "==", "value": "Café"}]}],
    "query_jsonlogic": [{"logic": {"==": [{"var": "title"}, "Café"]}}],
    "search_semantic": [{"query": "latinword"}],
    "search_hybrid": [{"query": "latinword"}],
    "find_similar": _each("path", ["Welcome", "Cafe", "Pipe.md"]),
    "rag_search": [{"query": "latinword"}],
    "search_vault": [{"query": "latinword"}, {}],
    "search_notes": [{"query": "latinword"}, {}],
    "bundle_folder": _each("folder", FOLDERS),
    "bundle_files": [{"paths": NOTE_PATHS}],
    "context_for_query": [{"query": "latinword"}, {"query": "bombword"}],
    "list_bookmarks": [{}],
    "get_workspace": [{}],
    "list_recent_files": [{}],
    "read_canvas": _each("path", ["Board.canvas", "Pipe.canvas", "Pipe.md", "Media/pipe.png"]),
    "read_excalidraw": _each("path", ["Lz", "Drawings/Lz.excalidraw.md", "Pipe", "Pipe.md", "Bomb", "Board.canvas"]),
    "list_attachments": [{}] + _each("folder", ["Media", "Linked"]),
    "read_attachment": _each("path", FILE_PATHS),
    "ocr_attachment": _each("path", FILE_PATHS),
    "ocr_bulk": [{"folder": "Media", "wait": True}, {"action": "status"}],
    "query_base": [
        {"path": "Tasks.base"},
        {"path": "Pipe.base"},
        {"yaml": "filters: 'file.hasTag(\"start\")'\nviews:\n  - type: table\n"},
    ],
    "list_tasks": [{}],
    "tasks_filter": [{"query": "not done\n(path includes a) OR NOT (tags include #x)\ngroup by tags"}]
    + _each("file", NOTE_PATHS, query="preset this_folder\ndescription includes {{query.file.property('tags')}}"),
    "open_nodes": [{"names": ["Cafe", "Pipe", "Caf\u00e9", "../outside"]}],
    "read_memory_graph": [{}],
    "search_memory": [{"query": "caf\u00e9 r\u00e9sum\u00e9 pipe"}],
    "list_captures": [{}],
    "plane_status": [{}],
    "list_findings": [{}, {"status": None}],
    # the bridge tools: no bridge in this vault, so a path is checked, then plugin_missing
    "open_in_obsidian": _each("path", [*NOTE_PATHS, "Board.canvas", "../outside"]),
    "get_active_note": [{}],
    "list_commands": [{}],
    "list_templater_templates": [{}],
    "list_quickadd_actions": [{}],
    "makemd_list_spaces": [{}],
    "makemd_query": [{"text": "caf\u00e9"}],
    "list_experiences": [{}],
    "get_periodic_note": [{}],
    "list_templates": [{}],
    "search_dql": _each("query", ['TABLE title FROM ""', "LIST FROM #start", 'TABLE file.outlinks FROM ""']),
    "validate_dql": [{"query": 'TABLE title FROM ""'}],
    "eval_dataview_field": _each("path", NOTE_PATHS, field="file.outlinks") + [{"path": "Bomb", "field": "a4"}],
    "index_status": [{}],
    "server_health": [{}],
    "list_vaults": [{}],
    "validate_plan": [
        {"plan": {"goal": "read", "steps": [{"id": "r", "tool": "read_note", "args": {"path": "Cafe"}}]}},
        {"plan": {"goal": "read", "steps": [{"id": "r", "tool": "read_note", "args": {"path": "Pipe.md"}}]}},
    ],
    "get_plan_run": [{"run_id": "nope"}],
    "list_macros": [{}],
}


def _read_tools() -> set[str]:
    return {s.name for s in REGISTRY if s.scopes == ("read:vault",) and s.domain != "facade"}


def test_every_read_tool_has_calls_in_the_suite() -> None:
    assert set(READ_CALLS) == _read_tools()


@contextlib.contextmanager
def _fifos(root: Path) -> Iterator[None]:
    for rel in FIFOS:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(root / rel)
    try:
        yield
    finally:  # a reader still blocked on one (a defect) is released, so a failure cannot hang the run
        for rel in FIFOS:
            with contextlib.suppress(OSError):
                os.close(os.open(root / rel, os.O_WRONLY | os.O_NONBLOCK))


def _hostile_vault(make_vault: Callable[..., Path]) -> tuple[Path, Path]:
    outside = make_vault({"Secret.md": "# Secret\n\noutsideword\n"}, name="outside")
    root = make_vault(TEXT_FILES, name="hostile")
    for rel in BAD_NAMES:
        full = os.path.join(os.fsencode(root), rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as fh:
            fh.write(b"# Bad name\n\nbadnameword\n")
    return root, outside


def _moved_past(indexer: VaultIndexer, generation: int) -> bool:
    return indexer.generation > generation


async def _link_while_serving(vg: Harness, outside: Path) -> None:
    """The symlinked folder appears; a note written after it is the sign the watcher got that far."""
    (vg.root / LINKED).symlink_to(outside, target_is_directory=True)
    (vg.root / "After.md").write_text("# After\n\nafterword\n", encoding="utf-8")
    indexer = vg.indexer()

    async def wait() -> None:
        while True:
            generation = indexer.generation
            if await vg.app.services.db.fetchone("SELECT 1 FROM notes WHERE path = 'After.md'"):
                return
            await indexer.wait_for(partial(_moved_past, indexer, generation), WITHIN)

    await asyncio.wait_for(wait(), WITHIN)


def _peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


def _reset_peak() -> float:
    """Reset the process's peak RSS to its current RSS (Linux: clear_refs 5); returns it in MB."""
    Path("/proc/self/clear_refs").write_text("5")
    return _peak_rss_mb()


Call = Callable[[str, dict[str, Any]], Awaitable[tuple[bool, dict[str, Any] | None]]]


async def _every_read_tool(call: Call, calls: dict[str, list[dict[str, Any]]]) -> dict[str, list[str]]:
    """Each call answered with a structured result that is no internal_error; the outcomes by tool."""
    outcomes: dict[str, list[str]] = {}
    for tool, arg_list in sorted(calls.items()):
        for args in arg_list:
            is_error, structured = await asyncio.wait_for(call(tool, args), WITHIN)
            assert structured is not None, f"{tool}{args}: no structured content"
            code = structured["error"]["code"] if is_error else "ok"
            assert code != "internal_error", f"{tool}{args}: {structured['error']}"
            outcomes.setdefault(tool, []).append(code)
    return outcomes


async def _checked_vault(vg: Harness) -> None:
    """What the index holds after the start and the symlink: every readable note, nothing else."""
    status = (await vg.call("index_status")).structured
    assert status is not None
    assert (status["state"], status["notes"]) == ("ready", 9), status
    warnings = status["file_warnings"]
    assert warnings["by_reason"] == {"encoding": 3, "name_not_utf8": 3, "special_file": 5}, warnings


async def _searchable(call: Call) -> None:
    for word, path in [
        ("welcomeword", "Welcome.md"),
        ("planword", "Projects/Plan.md"),
        ("latinword", "Cafe.md"),
        ("widewords", "Wide.md"),
        ("brokenword", "Broken.md"),
        ("canvasword", "Board.canvas"),
        ("lzword", "Drawings/Lz.excalidraw.md"),
        ("afterword", "After.md"),
    ]:
        is_error, found = await call("search_text", {"query": word})
        assert not is_error and found is not None
        assert [i["path"] for i in found["items"]] == [path], (word, found)
    for word in ("outsideword", "badnameword"):
        is_error, found = await call("search_text", {"query": word})
        assert not is_error and found is not None and found["items"] == [], (word, found)


@pytest.fixture
async def hostile(make_vault: Callable[..., Path]) -> AsyncIterator[tuple[Harness, Path]]:
    root, outside = _hostile_vault(make_vault)
    with _fifos(root):
        async with started(root) as vg:
            await vg.indexed(WITHIN)
            await _link_while_serving(vg, outside)
            yield vg, outside


async def test_every_read_tool_answers_over_the_hostile_vault_through_the_dispatch_chain(
    hostile: tuple[Harness, Path],
) -> None:
    vg, _ = hostile
    await _checked_vault(vg)

    async def call(tool: str, args: dict[str, Any]) -> tuple[bool, dict[str, Any] | None]:
        result = await vg.call(tool, **args)
        return result.is_error, result.structured

    before = _reset_peak()
    outcomes = await _every_read_tool(call, READ_CALLS)
    grown = _peak_rss_mb() - before
    assert grown < MEMORY_BOUND_MB, f"peak RSS grew {grown:.0f} MB"
    # The hostile notes are read, not refused: with their encoding, or a structured error for a FIFO.
    assert outcomes["read_note"][:5] == ["ok"] * 5, outcomes["read_note"]
    assert set(outcomes["read_note"][5:9]) <= {"note_not_found", "path_invalid", "not_a_note"}
    assert (await vg.ok("read_note", path="Bomb"))["frontmatter_error"]
    await _searchable(call)
    assert (await vg.ok("server_health"))["status"] == "ok"


@pytest.mark.parametrize("fast_calls", [True, False], ids=["fast-path", "sdk-path"])
async def test_every_read_tool_answers_over_the_hostile_vault_on_a_real_server(
    make_vault: Callable[..., Path], fast_calls: bool
) -> None:
    """HTTP with the SDK client, with the fast path answering plain calls and with every call
    through the SDK's session (`[protocol] fast_calls`)."""
    root, outside = _hostile_vault(make_vault)
    with _fifos(root):
        async with e2e(root, protocol={"fast_calls": fast_calls}) as (url, vg):
            await vg.indexed(WITHIN)
            await _link_while_serving(vg, outside)
            await _checked_vault(vg)
            async with Client(url) as client:

                async def call(tool: str, args: dict[str, Any]) -> tuple[bool, dict[str, Any] | None]:
                    result = await client.call_tool(tool, args)
                    return result.is_error, result.structured_content

                await _every_read_tool(call, READ_CALLS)
                await _searchable(call)
                is_error, health = await call("server_health", {})
                assert not is_error and health is not None and health["status"] == "ok"


async def test_every_read_tool_answers_over_the_hostile_vault_over_stdio(make_vault: Callable[..., Path]) -> None:
    """The stdio front: a `vaultgate stdio` process (the symlinked folder is there from the start:
    the scan never enters it; a reindex waits for the index to be complete)."""
    root, outside = _hostile_vault(make_vault)
    (root / LINKED).symlink_to(outside, target_is_directory=True)
    (root / "After.md").write_text("# After\n\nafterword\n", encoding="utf-8")
    params = StdioServerParameters(command=sys.executable, args=["-m", "service", "stdio", str(root)])
    with _fifos(root):
        async with Client(params) as client:

            async def call(tool: str, args: dict[str, Any]) -> tuple[bool, dict[str, Any] | None]:
                result = await client.call_tool(tool, args)
                return result.is_error, result.structured_content

            is_error, done = await asyncio.wait_for(call("reindex", {"mode": "sync", "wait": True}), WITHIN)
            assert not is_error and done is not None and done["job"]["status"] == "done", done
            await _every_read_tool(call, READ_CALLS)
            await _searchable(call)
            is_error, status = await call("index_status", {})
            assert not is_error and status is not None and status["state"] == "ready"
            assert status["file_warnings"]["by_reason"] == {"encoding": 3, "name_not_utf8": 3, "special_file": 5}
