"""kill -9 in the middle of writes, then a restart: no torn note, no lost acknowledged write, and
an index that agrees with the disk.

A real `vaultgate serve` process takes 40 concurrent writes (overwrites of existing notes and new
notes, each ~64 KB so that writes overlap); as soon as a few have been acknowledged the process
is killed with SIGKILL while the rest are in flight. Where the kill lands differs from run to
run; what is checked holds for every interleaving: each note on disk is exactly its old text or
exactly one of the texts sent for it, every acknowledged write is on disk, no temp file is
indexed, and after the restart every note is listed and findable by a word only it contains.
Plain JSON-RPC over HTTP (stateless, JSON answers), so a dead server is a connection error at
once rather than a stream left waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2

ENV = {"VAULTGATE_HTTP__STATELESS": "true", "VAULTGATE_HTTP__JSON_RESPONSE": "true"}
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
NOTES = 20
FILLER = ("lorem ipsum dolor sit amet " * 40 + "\n") * 60  # ~64 KB


@contextmanager
def server(
    root: Path, env: Mapping[str, str] = ENV, *, graceful: bool = False
) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """`vaultgate serve root` with `env`; stopped with SIGKILL (`graceful`: SIGTERM first)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "service", "serve", str(root), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, **env},
    )
    try:
        assert proc.stdout is not None
        url = ""
        for line in proc.stdout:
            if line.startswith("MCP endpoint:"):
                url = line.split(":", 1)[1].strip()
                break
        assert url, "the server did not start"
        yield proc, url
    finally:
        if proc.poll() is None and graceful:
            proc.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=30)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        if proc.stdout is not None:
            proc.stdout.close()


async def call(http: httpx2.AsyncClient, url: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": args}}
    response = await http.post(url, json=body, headers=HEADERS)
    response.raise_for_status()
    result: dict[str, Any] = response.json()["result"]
    return result


def old_text(i: int) -> str:
    return f"# Old {i}\n\noldword{i}\n"


def new_text(i: int) -> str:
    return f"# New {i}\n\nnewword{i}\n\n{FILLER}"


async def writes_until_killed(url: str, proc: subprocess.Popen[str]) -> dict[str, str]:
    """40 writes at once; SIGKILL once 3 are acknowledged. Returns the acknowledged ones."""
    acked: dict[str, str] = {}
    three = asyncio.Event()

    async def one(http: httpx2.AsyncClient, tool: str, args: dict[str, Any]) -> None:
        result = await call(http, url, tool, args)
        if not result.get("isError"):
            acked[args["path"]] = args["content"]
            if len(acked) >= 3:
                three.set()

    jobs = [("write_note", {"path": f"Old/n{i}.md", "content": new_text(i), "mode": "overwrite"}) for i in range(NOTES)]
    jobs += [("create_note", {"path": f"Fresh/f{i}.md", "content": new_text(100 + i)}) for i in range(NOTES)]
    limits = httpx2.Limits(max_connections=len(jobs))
    async with httpx2.AsyncClient(timeout=60, limits=limits) as http:
        tasks = [asyncio.create_task(one(http, tool, args)) for tool, args in jobs]
        waiter = asyncio.create_task(three.wait())
        await asyncio.wait([waiter, *tasks], return_when=asyncio.FIRST_COMPLETED)
        await asyncio.wait([waiter], timeout=60)
        proc.send_signal(signal.SIGKILL)
        await asyncio.gather(*tasks, return_exceptions=True)
    return acked


async def test_kill_9_mid_writes_leaves_whole_notes_and_a_consistent_index(make_vault: Callable[..., Path]) -> None:
    root = make_vault({f"Old/n{i}.md": old_text(i) for i in range(NOTES)})
    with server(root) as (proc, url):
        acked = await writes_until_killed(url, proc)
        proc.wait(timeout=30)
    assert len(acked) >= 3
    # on disk: whole notes only, every acknowledged write kept
    for i in range(NOTES):
        text = (root / f"Old/n{i}.md").read_text(encoding="utf-8")
        assert text in (old_text(i), new_text(i)), f"Old/n{i}.md is torn ({len(text)} bytes)"
        fresh = root / f"Fresh/f{i}.md"
        if fresh.exists():
            assert fresh.read_text(encoding="utf-8") == new_text(100 + i), f"{fresh} is torn"
    for path, content in acked.items():
        assert (root / path).read_text(encoding="utf-8") == content
    on_disk = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md"))
    # after a restart the index agrees with the disk
    with server(root) as (_, url):
        async with httpx2.AsyncClient(timeout=60) as http:
            for _ in range(600):  # bounded wait for the first reconcile
                status = await call(http, url, "index_status", {})
                if status["structuredContent"]["backlog"] == 0 and status["structuredContent"]["health"] == "healthy":
                    break
                await asyncio.sleep(0.1)
            listed = await call(http, url, "list_notes", {"limit": 1000})
            assert sorted(i["path"] for i in listed["structuredContent"]["items"]) == on_disk
            for rel in on_disk:
                text = (root / rel).read_text(encoding="utf-8")
                word = text.split("\n")[2]
                found = await call(http, url, "search_text", {"query": word, "limit": 5})
                assert [i["path"] for i in found["structuredContent"]["items"]] == [rel], word
