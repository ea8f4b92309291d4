"""A large create_entities builds its answer in a worker thread (M2 s84): the answer scans every
observation it echoes for secrets, ~0.35 ms each on the 2-core test machine, so 20 entities of
1,000 observations held the event loop ~7 s, every other client's call waiting. Past 64 KiB of
observation text (`service.vault.offloop`) it runs off the loop; a small call's stays inline.
Checked by the thread the entity's report is built in, not by time."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from service.tools.memory import entities
from tests.conftest import Harness


async def test_a_large_create_reports_off_the_loop(vg: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    threads: dict[str, bool] = {}
    real = entities.entity_out

    def entity_out(ctx: Any, loaded: Any, **kw: Any) -> Any:
        threads[loaded.entity.name] = threading.current_thread() is threading.main_thread()
        return real(ctx, loaded, **kw)

    monkeypatch.setattr(entities, "entity_out", entity_out)
    texts = [f"fact {j} " + "x" * 100 for j in range(700)]  # ~75 KB
    big = await vg.ok("create_entities", entities=[{"name": "Big", "entityType": "t", "observations": texts}])
    small = await vg.ok("create_entities", entities=[{"name": "Small", "entityType": "t", "observations": ["one"]}])
    assert len(big["created"][0]["observations"]) == 700 and len(small["created"]) == 1
    assert threads == {"Big": False, "Small": True}, threads
