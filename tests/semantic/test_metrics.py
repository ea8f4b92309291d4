"""The embedding gauges on /metrics (what the alert rules in deploy/monitoring watch): the backlog
of chunks waiting for a vector and whether the embedding job is failing, against a local
stand-in of the Ollama API (tests/semantic/standin.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import Harness, started
from tests.semantic.helpers import VAULT, settled
from tests.semantic.standin import stand_in


async def gauges(h: Harness) -> dict[str, float]:
    await h.app.refresh_gauges()
    found: dict[str, float] = {}
    for line in h.app.metrics.render().decode().splitlines():
        if line.startswith(("vaultgate_embedding_backlog{", "vaultgate_embedding_failing{")):
            name, value = line.rsplit(" ", 1)
            found[name] = float(value)
    return found


async def test_embedding_gauges_follow_the_backlog_and_an_outage(make_vault: Callable[..., Path]) -> None:
    async with stand_in() as server:
        cfg = {"provider": "ollama", "base_url": server.url, "debounce_ms": 0, "retries": 0}
        async with started(make_vault(VAULT), embeddings=cfg) as h:
            await settled(h)
            assert await gauges(h) == {
                'vaultgate_embedding_backlog{vault="main"}': 0.0,
                'vaultgate_embedding_failing{vault="main"}': 0.0,
            }
            server.fail_next = 1000  # the provider goes down while a note changes
            await h.ok("append_note", path="Pets/Cats.md", content="\nDogs are different.\n")
            await settled(h)
            down = await gauges(h)
            assert down['vaultgate_embedding_failing{vault="main"}'] == 1.0
            assert down['vaultgate_embedding_backlog{vault="main"}'] >= 1.0
