"""The SQLite page cache of every connection the app opens: what its memory can grow to."""

from __future__ import annotations

from service.storage import db as dbmod
from tests.conftest import Harness


async def test_each_database_caps_its_page_caches(vg: Harness) -> None:
    async def sizes(database: dbmod.Database) -> tuple[int, int, int]:
        writer = await database.run_write(lambda c: c.execute("PRAGMA cache_size").fetchone()[0])
        reader = await database.run_read(lambda c: c.execute("PRAGMA cache_size").fetchone()[0])
        return int(writer), int(reader), int(database.point_read("PRAGMA cache_size")[0])

    index = -dbmod.CACHE_KIB, -dbmod.READER_CACHE_KIB, -dbmod.POINT_CACHE_KIB
    assert await sizes(vg.app.db) == index
    assert await sizes(vg.app.state) == (-2000, -1000, -dbmod.POINT_CACHE_KIB)
