"""`vaultgate serve` sent SIGTERM while a `rename_note` over HTTP writes its files, in both
protocol eras: the client gets `server_stopping` (retryable) instead of a dropped connection or
`internal_error`, the process exits 0, and the vault is as it was before the call — on exit, not
only after the next start rolls a journal back. The next start finds nothing to roll back and
the same rename then goes through.

The server is `python -m tests.stopped_mid_change` (the CLI's own `run_http`, with a step hook
that signals the process from inside the rename's commit phase after its first file).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import Client

from tests.conftest import snapshot, started, write_files
from tests.e2e.calls import error, ok
from tests.e2e.served import endpoint_of
from tests.killed import REPO
from tests.long_changes import HUB_NOTES, hub_files


@contextlib.contextmanager
def _served(root: Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """`python -m tests.stopped_mid_change ROOT` in a subprocess: its endpoint and the process."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    argv = [sys.executable, "-m", "tests.stopped_mid_change", str(root)]
    with subprocess.Popen(argv, env=env, cwd=REPO, stdout=subprocess.PIPE, text=True) as proc:
        try:
            url = endpoint_of(proc, 120)
            assert url, "the server printed no endpoint"
            yield url, proc
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_sigterm_mid_rename_rolls_back_and_answers_server_stopping(tmp_path: Path, mode: str) -> None:
    root = tmp_path / "hub"
    root.mkdir()
    write_files(root, hub_files())
    before = snapshot(root)
    with _served(root) as (url, proc):
        async with Client(url, mode=mode) as client:
            await ok(client, "reindex", mode="sync")
            err = await error(client, "rename_note", path="Hub", new_path="Centre")
        assert err["code"] == "server_stopping" and err["retryable"] is True
        assert err["details"] == {"done_before_stop": 1, "total": HUB_NOTES + 1}
        assert await anyio.to_thread.run_sync(lambda: proc.wait(timeout=60)) == 0
    assert snapshot(root) == before
    async with started(root) as vg:
        runs = await vg.app.state.fetchall("SELECT kind, status FROM plan_runs ORDER BY rowid")
        assert [tuple(r) for r in runs] == [("bulk", "failed")]
        assert snapshot(root) == before
        await vg.indexed()
        moved = await vg.ok("rename_note", path="Hub", new_path="Centre")
        assert moved["files_moved"] == 1 and moved["notes_rewritten"] == HUB_NOTES, moved
    assert (root / "Centre.md").exists() and "[[Centre]]" in (root / "Notes/n000.md").read_text()
