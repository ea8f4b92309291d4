"""A call with an `idempotency_key` whose server was killed (SIGKILL) in the middle, retried with
the same key once the server is back (K2 s95).

The killed call had claimed its key (`idempotency_keys`, state database) and never completed it.
The retry after the restart was answered `idempotency_in_flight`, "still running", retry after
1 s, for `idempotency.reclaim_seconds` (300 s): nothing ran it any more, the client that retried
as told was refused for five minutes, and a call whose cut-short run the start rolled back (an
all-or-nothing `bulk_create_notes`) could not be made at all meanwhile. A claim now names the
server process that took it (its owner lock, `service.storage.owners`, the plan journal's); one
whose owner is gone is taken over at once, while a live server's claim still answers
`idempotency_in_flight`.

The killed server is `python -m tests.idempotency_killed` (the CLI's `run_http`, dying right
after the second note's write); the one that comes back is a real `vaultgate serve`; the calls
go through the SDK client.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from tests.e2e.served import endpoint_of
from tests.killed import REPO
from tests.reliability.test_crash import server

NOTES = [{"path": f"B/n{i}.md", "content": f"# n{i}\n\nbulkword{i}\n"} for i in range(4)]
CALL: dict[str, Any] = {"notes": NOTES, "idempotency_key": "k2-bulk-1"}


async def _killed_mid_call(root: Path) -> None:
    """The call sent to a server that dies right after writing its second note."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    argv = [sys.executable, "-m", "tests.idempotency_killed", str(root), "B/n1.md"]
    with subprocess.Popen(argv, env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=None, text=True) as proc:  # noqa: ASYNC220
        try:
            url = await anyio.to_thread.run_sync(endpoint_of, proc, 120)
            assert url, "the server printed no endpoint"
            try:
                async with Client(url) as client:
                    await client.call_tool("bulk_create_notes", CALL)
            except Exception:  # noqa: BLE001, S110 - the server died under the call: what is under test
                pass
            await anyio.to_thread.run_sync(proc.wait, 60)
            assert proc.returncode == -9, f"the server was not killed in the call ({proc.returncode})"
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


async def test_a_retry_after_the_server_was_killed_runs_the_call_at_once(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Home.md": "# Home\n"})
    await _killed_mid_call(root)
    assert (root / "B/n1.md").exists(), "the kill did not land after the second note's write"
    with server(root) as (_, url):
        async with Client(url) as client:
            assert not (root / "B/n0.md").exists(), "the start rolled the cut-short bulk call back"
            retried = await client.call_tool("bulk_create_notes", CALL)
            assert not retried.is_error, json.dumps(retried.structured_content)
            assert sorted(p.relative_to(root).as_posix() for p in (root / "B").glob("*.md")) == [
                n["path"] for n in NOTES
            ]
            again = await client.call_tool("bulk_create_notes", CALL)  # replayed, nothing run twice
            assert not again.is_error and again.structured_content == retried.structured_content
            for note in NOTES:
                assert (root / note["path"]).read_text(encoding="utf-8") == note["content"]
