"""Operating the server, end to end: failures that explain themselves (OS errors as structured
errors, start-up checks, `--version`), the index outside the vault, one log line per call and a
clean shutdown on SIGTERM/SIGINT — through real subprocesses and the SDK's clients.

A read-only file system is real here: a tmpfs mounted and remounted read-only. That needs root
(CAP_SYS_ADMIN); without it those tests skip and say so. Permission bits cannot be tested as
root (root passes them), see tests/unit/vault/test_oserrors.py."""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import e2e, write_files
from tests.e2e.test_cli import run, serve

REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 60


@contextmanager
def tmpfs(folder: Path) -> Iterator[Callable[[bool], None]]:
    """A tmpfs at `folder`; yields `set_read_only(bool)` (a remount). Skips when mounting is not
    permitted."""
    folder.mkdir(parents=True, exist_ok=True)
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(folder)], capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs (needs root / CAP_SYS_ADMIN): {made.stderr.decode().strip()}")

    def set_read_only(read_only: bool) -> None:
        mode = "ro" if read_only else "rw"
        subprocess.run(["mount", "-o", f"remount,{mode}", str(folder)], check=True, capture_output=True)

    try:
        yield set_read_only
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def test_version_flag() -> None:
    from service._version import VERSION

    out = run("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"vaultgate {VERSION}"


def test_config_validate_reports_every_problem_in_one_run(tmp_path: Path) -> None:
    config = tmp_path / "vaultgate.toml"
    (tmp_path / "not-a-folder").write_text("x\n")
    config.write_text(
        '[[vaults]]\nid = "a"\npath = "missing-a"\n[[vaults]]\nid = "b"\npath = "missing-b"\n'
        '[http]\nport = "eighty"\n[auth]\nmode = "jwt"\njwt_secret = "short"\n'
    )
    out = run("config", "validate", str(config))
    assert out.returncode == 1 and "Traceback" not in out.stderr
    for expected in ("http.port", "at least 32 bytes", "missing-a", "missing-b"):
        assert expected in out.stderr, out.stderr
    # Settings that validate are then checked on disk, every folder at once.
    vault = tmp_path / "vault"
    write_files(vault, {"A.md": "a\n"})
    blocker = tmp_path / "not-a-folder"
    env = {"VAULTGATE_STORAGE__CACHE_DIR": str(blocker / "cache"), "VAULTGATE_EVENTS__SPOOL_DIR": str(blocker / "s")}
    out = run("config", "validate", str(vault), env=env)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert "cache folder" in out.stderr and "data folder" in out.stderr and "event spool" in out.stderr
    served = run("serve", str(vault), "--port", "0", env=env)  # start-up refuses with the same list
    assert served.returncode == 1 and "cache folder" in served.stderr and "Traceback" not in served.stderr
    assert "MCP endpoint" not in served.stdout
    ok = run("config", "validate", str(vault))
    assert ok.returncode == 0 and "cache folder" in ok.stdout and "data folder" in ok.stdout


def test_a_read_only_vault_is_refused_at_start_unless_served_read_only(tmp_path: Path) -> None:
    vault = tmp_path / "ro-vault"
    with tmpfs(vault) as set_read_only:
        write_files(vault, {"A.md": "a\n"})
        set_read_only(True)
        out = run("config", "validate", str(vault))
        assert out.returncode == 1 and "Traceback" not in out.stderr
        assert str(vault) in out.stderr and "not writable" in out.stderr and "Read-only file system" in out.stderr
        assert "acl.read_only" in out.stderr  # says how to serve it anyway
        stdio = run("stdio", str(vault))
        assert stdio.returncode == 1 and "not writable" in stdio.stderr and "Traceback" not in stdio.stderr
        assert run("config", "validate", str(vault), env={"VAULTGATE_ACL__READ_ONLY": "true"}).returncode == 0


@pytest.mark.covers("write_note", "failure")
async def test_a_vault_that_turns_read_only_answers_vault_unwritable_over_http(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    with tmpfs(vault) as set_read_only:
        write_files(vault, {"Notes/A.md": "# A\n"})
        async with e2e(vault) as (url, harness):
            await harness.indexed()
            set_read_only(True)
            try:
                async with Client(url, mode="legacy") as client:
                    wrote = await client.call_tool("write_note", {"path": "Notes/New", "content": "x\n"})
                    assert wrote.is_error and wrote.structured_content is not None
                    error = wrote.structured_content["error"]
                    assert error["code"] == "vault_unwritable" and error["retryable"] is False and error["hint"]
                    assert error["details"] == {"errno": "EROFS", "path": "Notes/New.md"}
                    assert str(tmp_path) not in json.dumps(wrote.structured_content)
                    read = await client.call_tool("read_note", {"path": "Notes/A"})
                    assert not read.is_error  # reading still works
            finally:
                set_read_only(False)
        assert sorted(p.name for p in (vault / "Notes").iterdir()) == ["A.md"]  # no half-written file


def _wait_for(stream: object, needle: str) -> str:
    """Lines read until one contains `needle` (bounded by TIMEOUT); returns what was read."""
    seen = ""
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        line = stream.readline()  # type: ignore[attr-defined]
        if not line:
            break
        seen += line
        if needle in line:
            return seen
    raise AssertionError(f"{needle!r} never appeared in:\n{seen}")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
async def test_http_logs_one_line_per_call_and_stops_cleanly(make_vault: Callable[..., Path], sig: int) -> None:
    with serve(str(make_vault()), "--port", "0", env={"VAULTGATE_LOG__CALL_INFO_MS": "0"}) as (proc, url):
        async with Client(url, mode="legacy") as client:
            assert not (await client.call_tool("read_note", {"path": "Welcome"})).is_error
            assert (await client.call_tool("read_note", {"path": "Nope"})).is_error
        proc.send_signal(sig)
        assert proc.wait(timeout=TIMEOUT) == 0
        assert proc.stderr is not None
        log = proc.stderr.read()
    assert "Traceback" not in log, log
    calls = [line for line in log.splitlines() if " vaultgate.calls: call " in line]
    assert len(calls) == 2, log
    assert " INFO " in calls[0] and "tool=read_note vault=main outcome=ok ms=" in calls[0] and "caller=" in calls[0]
    assert "outcome=note_not_found" in calls[1]


async def test_the_call_line_can_be_switched_off(make_vault: Callable[..., Path]) -> None:
    with serve(str(make_vault()), "--port", "0", env={"VAULTGATE_LOG__CALLS": "false"}) as (proc, url):
        async with Client(url, mode="legacy") as client:
            assert not (await client.call_tool("read_note", {"path": "Welcome"})).is_error
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=TIMEOUT) == 0
        assert proc.stderr is not None
        log = proc.stderr.read()
    assert "vaultgate.calls" not in log and "Traceback" not in log


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_stdio_serves_then_stops_cleanly_on_a_signal(make_vault: Callable[..., Path], sig: int) -> None:
    """A JSON-RPC client over the pipes (initialize, a tool call), then the signal while stdin is
    still open: exit 0, no traceback."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "service", "stdio", str(make_vault())],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "VAULTGATE_LOG__CALL_INFO_MS": "0"},  # the call line of a fast success at INFO
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    try:
        messages = [
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "pipe-client", "version": "1"},
                },
            },
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "read_note", "arguments": {"path": "Welcome"}},
            },
        ]
        for message in messages:
            proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()
        answers = [json.loads(_wait_for(proc.stdout, '"id":')) for _ in range(2)]
        by_id = {a["id"]: a for a in answers}
        assert by_id[2]["result"]["structuredContent"]["title"] == "Welcome"
        proc.send_signal(sig)
        assert proc.wait(timeout=TIMEOUT) == 0
        log = proc.stderr.read()
        assert "Traceback" not in log, log
        assert "tool=read_note vault=main outcome=ok" in log
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=TIMEOUT)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            stream.close()


@pytest.mark.covers("write_note", "success")
@pytest.mark.covers("get_audit_log", "success")
async def test_zero_config_keeps_every_server_file_outside_the_vault(
    make_vault: Callable[..., Path], _xdg_homes: Path
) -> None:
    root = make_vault()
    async with e2e(root) as (url, harness):
        async with Client(url, mode="legacy") as client:
            assert not (await client.call_tool("write_note", {"path": "New", "content": "hello\n"})).is_error
            await harness.app.audit.drained()
            audit = await client.call_tool("get_audit_log", {})
            assert audit.structured_content is not None and audit.structured_content["items"]
        cache, data = harness.app.settings.cache_dir(), harness.app.settings.data_dir()
    assert not (root / ".vaultgate").exists()
    assert cache.is_relative_to(_xdg_homes / "cache") and (cache / "cache.db").is_file()
    assert data.is_relative_to(_xdg_homes / "data") and (data / "state.db").is_file()
    assert (data / "events").is_dir() and not (cache / "events").exists()


@pytest.mark.covers("get_audit_log", "success")
async def test_an_index_inside_the_vault_is_moved_out_once_with_its_records(
    make_vault: Callable[..., Path], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = make_vault()
    legacy = root / ".vaultgate"
    # Earlier versions kept one database, records and index together, in <vault>/.vaultgate:
    # make one (records written there, then the file named as the old index was).
    async with e2e(root, storage={"cache_dir": tmp_path / "elsewhere", "data_dir": legacy}) as (url, harness):
        async with Client(url, mode="legacy") as client:
            assert not (await client.call_tool("read_note", {"path": "Welcome"})).is_error
        await harness.app.audit.drained()
    for suffix in ("", "-wal", "-shm"):
        if (legacy / f"state.db{suffix}").exists():
            os.replace(legacy / f"state.db{suffix}", legacy / f"cache.db{suffix}")
    shutil.rmtree(legacy / "events", ignore_errors=True)
    for newer in legacy.glob("experiential.db*"):  # earlier versions had no experiential store
        newer.unlink()
    caplog.set_level(logging.WARNING, logger="vaultgate.storage")
    async with e2e(root) as (url, harness):
        await harness.indexed()
        async with Client(url, mode="legacy") as client:
            audit = await client.call_tool("get_audit_log", {})
            assert audit.structured_content is not None
            tools = [item["tool"] for item in audit.structured_content["items"]]
            found = await client.call_tool("search_text", {"query": "sample"})
            assert not found.is_error
    assert "read_note" in tools  # the audit record made before the move is still there
    assert any("reused the index" in r.getMessage() for r in caplog.records)
    assert not legacy.exists()
    assert (harness.app.settings.cache_dir() / "cache.db").is_file()


async def test_the_watcher_ignores_vaultgate_own_files_inside_a_vault(make_vault: Callable[..., Path]) -> None:
    root = make_vault()
    async with e2e(root, storage={"cache_dir": root / "Server Index"}) as (url, harness):
        await harness.indexed()
        from service.indexer.runner import indexer_of

        indexer = indexer_of(harness.app.vaults["main"])
        assert indexer is not None and indexer._watcher is not None
        watcher = indexer._watcher
        assert watcher.own(str(root / "Server Index" / "cache.db-wal"))
        assert watcher.own(str(root / "Server Index" / "data" / "state.db"))
        assert not watcher.own(str(root / "Server Indexes.md"))
        async with Client(url, mode="legacy") as client:
            listed = await client.call_tool("list_notes", {"limit": 200})
            assert listed.structured_content is not None
            assert not [i for i in listed.structured_content["items"] if "Server Index" in i["path"]]


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t"}
    env["GIT_COMMITTER_EMAIL"] = "t@e"
    done = subprocess.run(["git", *args], cwd=repo, check=True, env=env, capture_output=True, text=True)
    return done.stdout


async def test_the_quick_start_leaves_git_status_clean(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`vaultgate serve deploy/sample-vault` in a clone: serving, reading and searching leave
    nothing for git to see."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    clone = tmp_path / "clone"
    shutil.copytree(REPO / "deploy" / "sample-vault", clone / "deploy" / "sample-vault")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "sample"]):
        _git(clone, *args)
    monkeypatch.chdir(clone)  # the quick start's relative path, from the clone's root
    with serve("deploy/sample-vault", "--port", "0") as (proc, url):
        async with Client(url, mode="legacy") as client:
            assert not (await client.call_tool("list_notes", {})).is_error
            assert not (await client.call_tool("search_text", {"query": "vault"})).is_error
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=TIMEOUT) == 0
    status = _git(clone, "status", "--porcelain", "--ignored")
    assert status == "", status


async def test_a_resource_the_os_refuses_to_read_says_why(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The permission error is raised where the vault layer meets the OS (root passes permission
    bits, so a chmod cannot produce it here)."""
    from mcp.shared.exceptions import MCPError

    root = make_vault()
    async with e2e(root) as (url, harness):
        files = harness.app.vaults["main"].files

        def denied(vp: object, chars: int) -> object:
            raise PermissionError(13, "Permission denied", str(root / "Welcome.md"))

        monkeypatch.setattr(files, "read_start", denied)  # resources/read reads at most its limit
        async with Client(url, mode="legacy") as client:
            with pytest.raises(MCPError) as caught:
                await client.read_resource("vault://main/Welcome.md")
    assert "vault_unreadable" in str(caught.value) and str(root) not in str(caught.value)
