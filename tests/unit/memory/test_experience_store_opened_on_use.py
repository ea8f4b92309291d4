"""`ExperienceStore` opens its database at the first use (`service.memory.experiences`): once
for first uses at the same time, not at all for a store never used, and not again after stop."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from service.errors import ServerStopping
from service.memory.experiences import ExperienceStore


async def test_first_uses_at_the_same_time_open_the_database_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ExperienceStore(tmp_path)
    await store.start()
    opens: list[int] = []
    real_open = store.db.open

    async def counted_open() -> None:
        opens.append(1)
        await real_open()

    monkeypatch.setattr(store.db, "open", counted_open)
    try:
        made, *pages = await asyncio.gather(
            store.record("v", "worked", "x", tool=None, context=None, confidence=1, tags=(), caller="t"),
            *(
                store.page("v", kind=None, tool=None, promoted=None, min_confidence=0, offset=0, limit=10)
                for _ in range(5)
            ),
        )
        assert len(opens) == 1
        assert all(total in (0, 1) for _, total in pages)
        assert await store.get("v", made.id) == made
    finally:
        await store.stop()


async def test_a_store_never_used_makes_no_file_and_a_stopped_one_stays_closed(tmp_path: Path) -> None:
    store = ExperienceStore(tmp_path)
    await store.start()
    await store.stop()
    assert not store.path.exists()
    with pytest.raises(ServerStopping, match="experiences store is closed"):  # retryable, not an internal error
        await store.get("v", "exp-1")
    assert not store.path.exists()
    await store.start()  # started again (an app started again): the next use opens it
    try:
        assert await store.get("v", "exp-1") is None
        assert store.path.exists()
    finally:
        await store.stop()
