"""The start's reconcile gives its turns to the calls (service/indexer/reconcile.py with
service.activity.GiveWay): the scan pauses every so many names, the start's reconciles pause on
the app's call counter, a `reindex` (a call waiting for its own reconcile) never does, and a
reconcile that waits on a running call still brings in what changed while the server was down."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from service.activity import Activity, GiveWay
from service.app import VaultgateApp
from service.indexer import reconcile
from service.indexer.scan import PAUSE_EVERY, scan
from service.vault.paths import VaultPaths
from tests.conftest import Harness, settings_for, started


def test_a_scan_gives_its_turn_every_so_many_names(tmp_path: Path) -> None:
    for i in range(2 * PAUSE_EVERY + 10):
        (tmp_path / f"N{i}.md").write_text(f"# {i}\n", encoding="utf-8")
    pauses: list[int] = []
    notes, _files = scan(VaultPaths(tmp_path), pause=lambda: pauses.append(1))
    assert len(notes) == 2 * PAUSE_EVERY + 10
    assert len(pauses) == 2


def test_a_comparison_gives_its_turn_between_pages_of_the_index(tmp_path: Path) -> None:
    import sqlite3

    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE notes (vault_id TEXT, path TEXT, mtime REAL, size INTEGER, etag TEXT)")
    count = 2 * reconcile.COMPARE_PAGE + 1
    conn.executemany("INSERT INTO notes VALUES ('v', ?, 1.0, 1, 'e')", [(f"N{i}.md",) for i in range(count)])
    disk = {f"N{i}.md": (1.0, 1) for i in range(count)}
    pauses: list[int] = []
    changed, removed, _added, _etags = reconcile.compare(
        conn, vault_id="v", disk=disk, full=False, pause=lambda: pauses.append(1)
    )
    assert (changed, removed) == ([], []) and len(pauses) == 3


class Recorded(GiveWay):
    made: list[Activity] = []

    def __init__(self, activity: Activity) -> None:
        super().__init__(activity)
        Recorded.made.append(activity)


async def test_the_start_gives_way_to_calls_and_a_reindex_does_not(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    Recorded.made = []
    monkeypatch.setattr(reconcile, "GiveWay", Recorded)
    async with started(make_vault({"A.md": "# A\n"}), index={"watch": False}) as vg:
        await vg.indexed()
        assert Recorded.made == [vg.app.activity]
        await vg.ok("reindex", mode="sync")
        assert Recorded.made == [vg.app.activity]


async def test_a_restart_that_gives_way_to_a_running_call_still_finds_what_changed(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({f"N{i}.md": f"# Note {i}\n\nbody {i}\n" for i in range(2 * PAUSE_EVERY)})
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
    (root / "N3.md").write_text("# Note 3\n\nchanged while stopped\n", encoding="utf-8")
    (root / "N4.md").unlink()
    gave_way = asyncio.Event()

    class Spy(GiveWay):
        def __call__(self) -> None:
            if self.activity.running:
                loop.call_soon_threadsafe(gave_way.set)
            super().__call__()

    loop = asyncio.get_running_loop()
    monkeypatch.setattr(reconcile, "GiveWay", Spy)
    app = VaultgateApp(settings_for(root, index={"watch": False}))
    app.activity.begin()  # a call runs from before the start's reconcile
    async with app.running():
        vg = Harness(app, root)
        try:
            await asyncio.wait_for(gave_way.wait(), 60)
        finally:
            app.activity.end()
        await vg.indexed()
        assert (await vg.ok("index_status"))["notes"] == 2 * PAUSE_EVERY - 1
        assert [i["path"] for i in (await vg.ok("search_text", query="stopped"))["items"]] == ["N3.md"]
