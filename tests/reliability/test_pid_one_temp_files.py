"""A server that runs as PID 1 (the Docker image: `ENTRYPOINT ["vaultgate"]`, no init) killed in
the middle of a write, then restarted as PID 1 again (K2 s95).

A container killed (`docker kill`, the OOM killer) and restarted keeps its hostname and the
kernel, so the temp file of the cut write (`.<name>.<random>.p1h<host>.vgtmp`) carried the new
server's own pid and host tag. The start-up sweep (`service.vault.temps`) took it for a live
writer's and left it in the vault for `GRACE_SECONDS` (an hour; synced by any sync client
meanwhile), against the promise that a restart leaves no temp file of an interrupted write. Now a
temp file with this process's pid and host tag written before it started is removed at once.

Both processes run in a PID namespace of their own (`unshare --pid --fork`, as root: the test
skips saying so where that is refused). The killed one is `python -m tests.held_in_write`, held
before the rename of an `append_note` and killed from outside (a namespace's first process
ignores its own SIGKILL); the restarted one is a real `vaultgate serve`, driven with the SDK client.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import anyio
import pytest
from mcp import Client

from tests.e2e.served import endpoint_of
from tests.killed import REPO
from tests.polling import until
from tests.reliability.test_crash import ENV

OLD = "# A\n\nold words here\n"
APPEND = '{"tool": "append_note", "args": {"path": "Notes/a.md", "content": "appended words\\n"}}'
PID_ONE = ["unshare", "--pid", "--fork", "--kill-child"]  # killed with it: the child's parent-death signal


def _pid_namespaces() -> str | None:
    """Why a PID namespace cannot be made here, or None."""
    if shutil.which("unshare") is None:
        return "no unshare command"
    done = subprocess.run([*PID_ONE, sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True)
    if done.returncode != 0 or done.stdout.strip() != b"1":
        return f"unshare --pid refused (needs root or user namespaces): {done.stderr.decode(errors='replace')[:200]}"
    return None


@contextlib.contextmanager
def _as_pid_one(argv: list[str], **popen: object) -> Iterator[subprocess.Popen[str]]:
    """`argv` as PID 1 of a new PID namespace; killed (SIGKILL, its child with it) at the end."""
    env = {**os.environ, **ENV, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([*PID_ONE, *argv], env=env, cwd=REPO, text=True, **popen)  # type: ignore[call-overload]
    try:
        yield proc
    finally:
        _kill(proc)
        if proc.stdout is not None:
            proc.stdout.close()


def _kill(proc: subprocess.Popen[str]) -> None:
    """SIGKILL `unshare` and wait until its child, the namespace's PID 1, is gone too."""
    if proc.poll() is not None:
        return  # killed and waited for already (its pid may be another process's by now)
    try:
        child: int | None = int(Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()[0])
    except (OSError, IndexError, ValueError):
        child = None  # its child not started yet
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    for _ in range(600):
        if child is None or not Path(f"/proc/{child}").exists():
            return
        time.sleep(0.05)
    raise AssertionError(f"PID 1 of the namespace ({child}) outlived its unshare")


def _temps(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.vgtmp"))


async def test_a_restarted_pid_one_removes_the_temp_file_its_killed_predecessor_left(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    refused = _pid_namespaces()
    if refused:
        pytest.skip(refused)
    root = make_vault({"Notes/a.md": OLD, "Home.md": "# Home\n"})
    marker = tmp_path / "held"
    with _as_pid_one([sys.executable, "-m", "tests.held_in_write", str(root), str(marker), "Notes/a.md", APPEND]) as p:
        await until(lambda: marker.exists() or p.poll() is not None, "the write held before its rename")
        assert marker.exists(), "the held process ended before its hold"
        _kill(p)
    [left] = _temps(root)
    assert ".p1h" in left, left  # written by a PID 1
    assert (root / "Notes/a.md").read_text(encoding="utf-8") == OLD
    argv = [sys.executable, "-m", "service", "serve", str(root), "--port", "0"]
    with _as_pid_one(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as served:
        url = await anyio.to_thread.run_sync(endpoint_of, served, 120)
        assert url, "the server printed no endpoint"
        async with Client(url) as client:
            await until(lambda: not _temps(root), f"the killed write's temp file removed ({left})")
            read = await client.call_tool("read_note", {"path": "Notes/a.md"})
            assert not read.is_error and (read.structured_content or {})["content"] == OLD
            found = await client.call_tool("search_text", {"query": "old words"})
            assert [i["path"] for i in (found.structured_content or {})["items"]] == ["Notes/a.md"]
            assert not (await client.call_tool("append_note", {"path": "Notes/a", "content": "more\n"})).is_error
