"""What `vaultgate stdio` loads: the front answers before pydantic and the settings are imported,
a server without an embedding model never loads numpy (nor the tokenizer or onnxruntime), the
SDK's client and `MCPServer` are never imported (service/protocol/sdk_packages.py), and the
process freezes its start-up heap for the garbage collector (service/collector.py)."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple, cast

import pytest

from tests.conftest import DEFAULT_VAULT, write_files

INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}


def test_the_answering_path_of_the_command_line_imports_no_pydantic() -> None:
    probe = (
        "import sys\n"
        "import service.__main__, service.protocol.stdio_front\n"
        "print(sorted(m for m in ('pydantic', 'service.settings', 'mcp', 'numpy', 'logging') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["[]"], out.stderr


def _ask(proc: subprocess.Popen[bytes], msg_id: int, method: str, params: dict[str, object]) -> dict[str, object]:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}).encode() + b"\n")
    proc.stdin.flush()
    while True:
        line = proc.stdout.readline()
        assert line, "the server closed stdout"
        answer: dict[str, object] = json.loads(line)
        if answer.get("id") == msg_id:
            return answer


def _stdio(root: Path, *options: str, homes: dict[str, str] | None = None, **streams: Any) -> subprocess.Popen[Any]:
    """`vaultgate stdio ROOT` without an embedding model, stdin a pipe (`options`: the interpreter's;
    `homes`: variables over the test's, such as its own XDG folders)."""
    env = {**os.environ, "VAULTGATE_EMBEDDINGS__PROVIDER": "none", **(homes or {})}
    return subprocess.Popen(
        [sys.executable, *options, "-m", "service", "stdio", str(root)], env=env, stdin=subprocess.PIPE, **streams
    )


# What the first call must not wait for: the SDK's client (`mcp/__init__` re-exports it) and the
# high-level `MCPServer` (`mcp/server/__init__` re-exports it); a server uses neither.
NEVER_IMPORTED = ("mcp.client", "mcp.client.session", "mcp.server.mcpserver")


def test_a_stdio_session_never_imports_the_sdk_client_nor_mcpserver(read_sessions: ReadSessions) -> None:
    for log in (read_sessions.first, read_sessions.warm):  # answered through the SDK, then from stored answers
        imported = _imported(log)
        assert "mcp.server.lowlevel.server" in imported  # the probe sees the SDK's imports
        assert sorted(imported & set(NEVER_IMPORTED)) == []


def _begin(proc: subprocess.Popen[bytes]) -> None:
    """`initialize` answered, then the client's `initialized` notification."""
    assert "result" in _ask(proc, 1, "initialize", INIT)
    assert proc.stdin is not None
    proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')


def _read_and_search(proc: subprocess.Popen[bytes], search: str) -> None:
    """`tools/list`, then a read and a search (`search`: the tool) of the default vault, both answered."""
    _ask(proc, 2, "tools/list", {})
    read = _ask(proc, 3, "tools/call", {"name": "read_note", "arguments": {"path": "Welcome"}})
    found = _ask(proc, 4, "tools/call", {"name": search, "arguments": {"query": "welcome"}})
    for answer in (read, found):
        result = answer["result"]
        assert isinstance(result, dict) and not result.get("isError"), answer


def _no_vector_libraries(pid: int) -> None:
    libraries = Path(f"/proc/{pid}/maps").read_text()
    assert "numpy" not in libraries and "onnxruntime" not in libraries and "tokenizers" not in libraries


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/<pid>/maps")
def test_a_server_without_embeddings_never_loads_numpy(make_vault: Callable[..., Path]) -> None:
    root = make_vault()
    for _ in range(2):  # the first start answers through the SDK, the second from stored answers
        with _stdio(root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as proc:
            _begin(proc)
            _read_and_search(proc, "search_notes")
            _no_vector_libraries(proc.pid)
            proc.stdin.close()  # end of input: the server exits
            assert proc.wait(timeout=60) == 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/<pid>/maps")
def test_a_settled_server_with_the_builtin_model_loads_no_numpy(make_vault: Callable[..., Path]) -> None:
    """The default configuration (the built-in model) on a vault whose every chunk is embedded:
    reads and text searches load neither numpy nor the model. The model's module imported numpy
    at its top, and the embedding job builds the embedder at the start only to read its name:
    10-16 MB more for every settled stdio server (docs/benchmarks.md, 2026-12-04 18:35 UTC)."""
    root = make_vault()
    builtin = {"VAULTGATE_EMBEDDINGS__PROVIDER": "builtin"}
    with _stdio(root, homes=builtin, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as proc:
        _begin(proc)
        deadline = time.monotonic() + 300
        for n in itertools.count(2):  # the first start embeds every chunk
            status = _ask(proc, n, "tools/call", {"name": "index_status", "arguments": {}})["result"]
            embeddings = cast(dict[str, Any], status)["structuredContent"]["embeddings"]
            if embeddings["backlog"] == 0 and embeddings["state"] == "idle":
                break
            assert time.monotonic() < deadline, embeddings
            time.sleep(0.2)
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    with _stdio(root, homes=builtin, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as proc:
        _begin(proc)
        _read_and_search(proc, "search_text")
        status = _ask(proc, 5, "tools/call", {"name": "index_status", "arguments": {}})["result"]
        embeddings = cast(dict[str, Any], status)["structuredContent"]["embeddings"]
        assert embeddings["model"] == "builtin:all-MiniLM-L6-v2-int8-fused" and embeddings["backlog"] == 0
        _no_vector_libraries(proc.pid)
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0


def test_vaultgate_stdio_freezes_its_start_up_heap(make_vault: Callable[..., Path]) -> None:
    root = make_vault()
    with _stdio(root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) as proc:
        assert proc.stderr is not None and proc.stdin is not None
        seen = []
        for line in proc.stderr:
            seen.append(line)
            if "start-up objects frozen" in line:
                break
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    assert any("start-up objects frozen" in line for line in seen), seen


def _imports_of_a_session(
    root: Path, log: Path, calls: list[tuple[str, dict[str, object]]], homes: dict[str, str] | None = None
) -> set[str]:
    """The modules a stdio session imports (`-X importtime`) while answering `initialize`,
    `tools/list` and `calls`, in order; each call must succeed."""
    with (
        log.open("wb") as err,
        _stdio(root, "-X", "importtime", homes=homes, stdout=subprocess.PIPE, stderr=err) as proc,
    ):
        _begin(proc)
        assert "result" in _ask(proc, 2, "tools/list", {})
        for n, (tool, arguments) in enumerate(calls, start=3):
            answer = _ask(proc, n, "tools/call", {"name": tool, "arguments": arguments})
            assert not answer["result"].get("isError"), answer  # type: ignore[union-attr]
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    return _imported(log)


def _imported(log: Path) -> set[str]:
    lines = log.read_text(errors="replace").splitlines()
    return {line.rsplit("|", 1)[1].strip() for line in lines if line.startswith("import time:")}


class ReadSessions(NamedTuple):
    root: Path
    homes: dict[str, str]  # its own XDG folders: the module's fixture runs before a test's
    first: Path  # `-X importtime` of the first session (an empty cache folder)
    warm: Path  # ...and of the second (stored answers and tool index)


@pytest.fixture(scope="module")
def read_sessions(tmp_path_factory: pytest.TempPathFactory) -> ReadSessions:
    """One vault's first and warm stdio sessions (initialize, tools/list, a read_note each), whose
    imports four tests read: two server starts under `-X importtime` instead of eight."""
    base = tmp_path_factory.mktemp("read-sessions")
    root = base / "vault"
    root.mkdir()
    write_files(root, dict(DEFAULT_VAULT))
    homes = {"XDG_CACHE_HOME": str(base / "cache"), "XDG_DATA_HOME": str(base / "data")}
    read = [("read_note", {"path": "Welcome"})]
    _imports_of_a_session(root, base / "first.txt", read, homes)
    _imports_of_a_session(root, base / "warm.txt", read, homes)
    return ReadSessions(root, homes, base / "first.txt", base / "warm.txt")


# Domain packages a `read_note` has no use for: a warm start must not import them before (or
# for) answering it (service/tools/registry.py, build_registry with the cache folder's index).
NOT_CALLED = ("graph", "obsidian", "tasks", "dataview", "bundles", "admin", "memory", "facade", "search", "sessions")


def _domains(imported: set[str], names: tuple[str, ...]) -> list[str]:
    """Which of the domain packages `names` have a module among `imported` (the package's own
    line is not always printed by `-X importtime`, its modules' lines are: each of `names` has some)."""
    return sorted(d for d in names if any(m.startswith(f"service.tools.{d}.") for m in imported))


def test_a_stdio_start_imports_only_the_domain_of_the_tool_it_calls(
    read_sessions: ReadSessions, tmp_path: Path
) -> None:
    read = [("read_note", {"path": "Welcome"})]
    # an empty cache folder too: the tool list is the package's (service/protocol/shipped_tools_list.py)
    first = _imported(read_sessions.first)
    assert _domains(first, ("notes",)) == ["notes"]
    assert _domains(first, NOT_CALLED) == []
    warm = _imported(read_sessions.warm)
    assert _domains(warm, ("notes",)) == ["notes"]
    assert _domains(warm, NOT_CALLED) == []
    # a tool of another domain, called later, is found: its package is imported then
    calls = [*read, ("get_backlinks", {"path": "Welcome"})]
    later = _imports_of_a_session(read_sessions.root, tmp_path / "later.txt", calls, read_sessions.homes)
    assert _domains(later, ("graph", "obsidian", "tasks", "admin", "facade")) == ["graph"]


def _warm_read_imports(read_sessions: ReadSessions) -> list[str]:
    """The modules a warm stdio start imports, in the order their imports end, in a session whose
    one call is a `read_note` (the first session stored the answers and tool index)."""
    lines = read_sessions.warm.read_text(errors="replace").splitlines()
    return [line.rsplit("|", 1)[1].strip() for line in lines if "|" in line]


def test_a_warm_stdio_start_answers_its_first_call_before_loading_the_sdk_server(
    read_sessions: ReadSessions,
) -> None:
    order = _warm_read_imports(read_sessions)
    # `-X importtime` prints a module when its import ends: read_note's module is done before the
    # SDK's server side starts loading (service/app.py, run_stdio_session), and neither uvicorn
    # nor the HTTP tier is imported before the call either (service/serve_stdio.py), nor the SDK's
    # protocol models (`mcp_types`, registered bare: service/protocol/sdk_packages.py)
    first_call = order.index("service.tools.notes.read")
    assert "mcp.server.lowlevel.server" in order[first_call:]
    assert "mcp_types._types" in order[first_call:]
    assert not {"mcp.server.lowlevel.server", "mcp_types._types", "uvicorn", "service.http.asgi"} & set(
        order[:first_call]
    )


# Modules the composition root builds objects of, whose heavy parts a `read_note` has no use for:
# the plan runner (checks, graph, effects: at the first plan run), the consolidation jobs
# (summaries, topics, graph analytics: at the plane's first run) and the semantic search (the
# sensitive-content helpers name its types in annotations only), the OCR reader and bulk jobs (at
# their first use), and the metrics' exposition (`prometheus_client` registered bare:
# service/protocol/sdk_packages.py).
LOADED_AT_FIRST_USE = (
    "service.plans.runner",
    "service.plane.jobs",
    "service.semantic.search",
    "service.ocr.bulk",
    "service.ocr.reading",
    "prometheus_client.exposition",
)


def test_a_warm_stdio_start_answers_read_note_before_loading_what_it_does_not_use(
    read_sessions: ReadSessions,
) -> None:
    order = _warm_read_imports(read_sessions)
    first_call = order.index("service.tools.notes.read")
    assert not set(LOADED_AT_FIRST_USE) & set(order[:first_call])
