"""The SQLite page cache of every connection the app opens: what its memory can grow to."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.indexer import runner
from service.indexer.runner import VaultIndexer
from service.storage import db as dbmod
from tests.conftest import Harness, started
from tests.search_vault import SEARCH_VAULT
from tests.unit.indexer.test_trigram_deferral import _trigram_done


async def _sizes(database: dbmod.Database) -> tuple[int, int, int]:
    writer = await database.run_write(lambda c: c.execute("PRAGMA cache_size").fetchone()[0])
    reader = await database.run_read(lambda c: c.execute("PRAGMA cache_size").fetchone()[0])
    return int(writer), int(reader), int(database.point_read("PRAGMA cache_size")[0])


async def test_each_database_caps_its_page_caches(vg: Harness) -> None:
    index = -dbmod.CACHE_KIB, -dbmod.READER_CACHE_KIB, -dbmod.POINT_CACHE_KIB
    assert await _sizes(vg.app.db) == index
    assert await _sizes(vg.app.state) == (-2000, -1000, -dbmod.POINT_CACHE_KIB)


async def test_the_writer_has_the_bulk_cache_only_while_a_bulk_load_runs(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "BULK_THRESHOLD", 3)
    monkeypatch.setattr(runner, "BATCH", 4)
    during: list[int] = []
    original = VaultIndexer._write_batch

    def spy(indexer: VaultIndexer, conn: Any, **kwargs: Any) -> None:
        during.append(int(conn.execute("PRAGMA cache_size").fetchone()[0]))
        original(indexer, conn, **kwargs)

    monkeypatch.setattr(VaultIndexer, "_write_batch", spy)
    async with started(make_vault(SEARCH_VAULT), index={"parse_workers": 0}) as vg:
        await vg.indexed()
        await _trigram_done(vg.indexer())  # rebuilt with the bulk cache, then lowered again
        assert len(during) > 1 and set(during) == {-dbmod.BULK_CACHE_KIB}
        assert (await _sizes(vg.app.db))[0] == -dbmod.CACHE_KIB
