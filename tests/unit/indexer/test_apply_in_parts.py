"""A large change batch (a hub note's rename re-announces every note it rewrote) is applied in
parts of `apply.CHUNK` changes: no part reads, parses or holds more notes than that, and the index
ends as one batch would leave it — links to the renamed note resolved, the rewritten notes
searchable, the trigram index deferred and rebuilt once, after the last part."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from service.indexer import apply, rows, runner
from tests.conftest import started

LINKING = 9


def _vault() -> dict[str, str | bytes]:
    files: dict[str, str | bytes] = {"Hub.md": "# Hub\n\nThe hub note.\n"}
    for i in range(LINKING):
        files[f"Notes/n{i}.md"] = f"# n{i}\n\nSee [[Hub]] for quartzite{i}.\n"
    return files


async def test_a_hub_rename_is_indexed_in_parts_and_ends_as_one_batch_would(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(apply, "CHUNK", 4, raising=False)
    monkeypatch.setattr(runner, "BULK_THRESHOLD", 5)
    parts: list[int] = []
    prepare_each = rows.prepare_each

    def counted(items: Iterable[rows.NoteInput], paths: Any) -> Any:
        items = list(items)
        parts.append(len(items))
        return prepare_each(items, paths)

    monkeypatch.setattr(rows, "prepare_each", counted)
    root = make_vault(_vault())
    async with started(root) as vg:
        await vg.indexed()
        indexer = vg.indexer()
        await indexer.query_indexes.settled()  # the cold load's own deferred rebuild is done first
        await indexer.trigram.settled()
        rebuilds = 0
        ask = indexer.trigram.ask

        def asked() -> None:
            nonlocal rebuilds
            rebuilds += 1
            ask()

        monkeypatch.setattr(indexer.trigram, "ask", asked)
        parts.clear()
        out = await vg.ok("rename_note", path="Hub", new_path="Centre", dry_run=False)
        assert out["notes_rewritten"] == LINKING
        await vg.settled()
        assert parts and max(parts) <= 4 and sum(parts) >= LINKING + 1, parts  # the renamed note too
        assert rebuilds == 1  # deferred in every part, rebuilt once
        links = await vg.ok("get_backlinks", path="Centre")
        assert sorted(i["path"] for i in links["items"]) == [f"Notes/n{i}.md" for i in range(LINKING)]
        for i in (0, LINKING - 1):  # a note of the first part and one of the last
            hits = await vg.ok("search_text", query=f"quartzite{i}")
            assert [h["path"] for h in hits["items"]] == [f"Notes/n{i}.md"]
            assert "[[Centre]]" in (root / "Notes" / f"n{i}.md").read_text(encoding="utf-8")
        await indexer.trigram.settled()
        regex = await vg.ok("search_regex", pattern=r"\[\[Centre\]\]")
        assert len(regex["items"]) == LINKING
        deferred = await vg.app.services.db.fetchone("SELECT trigram_deferred FROM fts_control")
        assert deferred[0] == 0
