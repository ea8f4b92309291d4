"""Two vaultgate processes on one vault (`vaultgate serve` for an HTTP agent beside `vaultgate
stdio` for a desktop client, both real subprocesses), agents adding observations to one entity
through both at once with the SDK client: every acknowledged observation is in the note
afterwards (the note's cross-process lock, `service.vault.notelocks`).

What this shows is that the pieces work together across real processes (both fronts, the lock
files, the re-read under the lock): no call fails and nothing acknowledged is missing. It cannot
reliably catch a lost write: without the lock the window between the last compare and the rename
is microseconds, and this test mostly passed on the code before the lock (review R3 s63 #13). The
deterministic guard is tests/unit/vault/test_notelocks.py, which holds a write at that compare."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from mcp import Client, StdioServerParameters

from tests.e2e.served import endpoint_of

CALLS = 15
WHO = ("http0", "http1", "stdio0", "stdio1")


@contextlib.contextmanager
def _served(root: Path) -> Iterator[str]:
    """`vaultgate serve ROOT` in a subprocess; its endpoint."""
    argv = [sys.executable, "-m", "service", "serve", str(root), "--port", "0"]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True) as served:
        try:
            url = endpoint_of(served)
            assert url, "the HTTP server did not start"
            yield url
        finally:
            served.terminate()
            served.wait(timeout=60)


async def _agent(client: Client, who: str, acknowledged: list[str], refused: list[object]) -> None:
    for i in range(CALLS):
        fact = f"{who} fact {i}"
        observations = [{"entityName": "Ann", "contents": [fact]}]
        answer = await client.call_tool("add_observations", {"observations": observations})
        if answer.is_error:
            refused.append(answer.structured_content)
        else:
            acknowledged.append(fact)


async def test_agents_on_a_serve_and_a_stdio_process_lose_no_observation(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Memory/Ann.md": "---\ntype: entity\nentityType: person\n---\n# Ann\n\n- seed\n"})
    params = StdioServerParameters(command=sys.executable, args=["-m", "service", "stdio", str(root)])
    acknowledged: list[str] = []
    refused: list[object] = []
    with _served(root) as url:
        async with contextlib.AsyncExitStack() as stack:
            clients = [await stack.enter_async_context(Client(at, mode="auto")) for at in (url, url, params, params)]
            agents = [_agent(c, who, acknowledged, refused) for c, who in zip(clients, WHO, strict=True)]
            await asyncio.gather(*agents)
    text = (root / "Memory/Ann.md").read_text(encoding="utf-8")
    assert refused == []  # a conflict between the processes is retried on the note as it is now
    assert len(acknowledged) == 4 * CALLS
    lost = [fact for fact in acknowledged if f"- {fact} [" not in text]
    assert lost == [], f"acknowledged but not in the note: {lost}"
