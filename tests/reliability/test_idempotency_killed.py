"""A call with an `idempotency_key` whose server was killed (SIGKILL) in the middle, retried with
the same key once the server is back (K2 s95).

The killed call had claimed its key (`idempotency_keys`, state database) and never completed it.
The retry after the restart was answered `idempotency_in_flight`, "still running", retry after
1 s, for `idempotency.reclaim_seconds` (300 s): nothing ran it any more, and the client that
retried as told was refused for five minutes, then the call ran again — an append the killed
server had made was appended a second time. A claim now names the server process that took it
(its owner lock, `service.storage.owners`, the plan journal's); a retry of one whose owner is gone
is answered `idempotency_interrupted` at once (it may have run: not retryable with that key), and
so is every later one; a new key runs the call.

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


async def _killed_mid_call(root: Path, rel: str, tool: str, args: dict[str, Any]) -> None:
    """The call sent to a server that dies right after writing `rel`."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    argv = [sys.executable, "-m", "tests.idempotency_killed", str(root), rel]
    with subprocess.Popen(argv, env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=None, text=True) as proc:  # noqa: ASYNC220
        try:
            url = await anyio.to_thread.run_sync(endpoint_of, proc, 120)
            assert url, "the server printed no endpoint"
            try:
                async with Client(url) as client:
                    await client.call_tool(tool, args)
            except Exception:  # noqa: BLE001, S110 - the server died under the call: what is under test
                pass
            await anyio.to_thread.run_sync(proc.wait, 60)
            assert proc.returncode == -9, f"the server was not killed in the call ({proc.returncode})"
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def _interrupted(result: Any) -> dict[str, Any]:
    assert result.is_error, json.dumps(result.structured_content)
    error: dict[str, Any] = result.structured_content["error"]
    assert error["code"] == "idempotency_interrupted" and error["retryable"] is False, error
    assert error["details"]["may_have_run"] is True, error
    return error


async def test_a_retry_of_an_append_the_killed_server_made_does_not_append_again(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault({"Log.md": "# Log\n"})
    call = {"path": "Log.md", "content": "line once\n", "idempotency_key": "k2-append-1"}
    await _killed_mid_call(root, "Log.md", "append_note", call)
    assert (root / "Log.md").read_text(encoding="utf-8").count("line once") == 1, "the kill came before the write"
    with server(root) as (_, url):
        async with Client(url) as client:
            _interrupted(await client.call_tool("append_note", call))  # at once, not "in flight" for 300 s
            _interrupted(await client.call_tool("append_note", call))  # and every time: never run twice
            assert (root / "Log.md").read_text(encoding="utf-8").count("line once") == 1
            fresh = await client.call_tool("append_note", {**call, "idempotency_key": "k2-append-2"})
            assert not fresh.is_error, json.dumps(fresh.structured_content)
            assert (root / "Log.md").read_text(encoding="utf-8").count("line once") == 2


async def test_a_retry_of_a_rolled_back_bulk_call_is_told_and_a_new_key_runs_it(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault({"Home.md": "# Home\n"})
    await _killed_mid_call(root, "B/n1.md", "bulk_create_notes", CALL)
    assert (root / "B/n1.md").exists(), "the kill did not land after the second note's write"
    with server(root) as (_, url):
        async with Client(url) as client:
            assert not (root / "B").exists() or not list((root / "B").glob("*.md")), "the start rolled it back"
            _interrupted(await client.call_tool("bulk_create_notes", CALL))
            retried = await client.call_tool("bulk_create_notes", {**CALL, "idempotency_key": "k2-bulk-2"})
            assert not retried.is_error, json.dumps(retried.structured_content)
            assert sorted(p.relative_to(root).as_posix() for p in (root / "B").glob("*.md")) == [
                n["path"] for n in NOTES
            ]
            for note in NOTES:
                assert (root / note["path"]).read_text(encoding="utf-8") == note["content"]
