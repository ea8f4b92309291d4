"""Index counts kept in step with the incremental writes and a reconcile's: after every kind of
change they equal a count of every table, without that count being made again; a bulk
reconcile, a write that failed and a write of many notes make the next read count everything."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from service.indexer import rows, runner, status
from service.indexer.runner import VaultIndexer
from service.vault.events import FileChange
from tests.conftest import Harness, started

NOTES = {
    "Hub.md": "# Hub\n\n## Part\n\nlinks [[Later]] [[A]] #shared #only-hub\n- [ ] open one\n- [x] done one\n",
    "A.md": "# A\n\n[[Hub]] [[Missing]] #shared\n- [ ] a task\n",
    "Board.canvas": '{"nodes": [], "edges": []}',
}


async def _counted(vg: Harness) -> tuple[VaultIndexer, int]:
    """The indexer once indexed and its counts read, and how many full counts it has made."""
    await vg.indexed()
    ix = vg.indexer()
    await ix.counts()
    return ix, ix._counts.full_counts


async def _every_table(ix: VaultIndexer) -> dict[str, int]:
    """Every table counted again (tasks per status character too, as `Counts.get` holds them)."""
    return await ix.db.run_read(ix._counts._all)


async def _external(ix: VaultIndexer, root: Path, path: str, text: str | None, kind: str = "modified") -> None:
    if text is None:
        (root / path).unlink()
    else:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    await ix.apply([FileChange(kind, path, origin="external")], only_if_changed=True)  # type: ignore[arg-type]


async def test_counts_follow_every_change_without_counting_every_table_again(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault(NOTES)
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
        ix = vg.indexer()
        assert await ix.counts() == await _every_table(ix)
        seeded = ix._counts.full_counts
        steps: list[tuple[str, str | None, str]] = [
            ("Later.md", "# Later\n\n[[Hub]]\n- [ ] later task\n", "created"),  # resolves Hub's link
            ("A.md", "# A\n\nno links now\n- [x] a task\n", "modified"),  # a task closed, links gone
            ("Hub.md", "# Hub\n\nonly words #shared\n", "modified"),  # the last #only-hub goes
            ("Missing.md", "# Missing\n", "created"),
            ("Later.md", None, "deleted"),
            ("Deep/Other.canvas", '{"nodes": []}', "created"),  # a canvas is no note
            ("Board.canvas", None, "deleted"),
        ]
        for path, text, kind in steps:
            await _external(ix, root, path, text, kind)
            assert await ix.counts() == await _every_table(ix), (path, kind)
        await vg.ok("create_note", path="Made", content="# Made\n\n[[Missing]] #made\n- [ ] t\n")
        await vg.ok("append_note", path="Made", content="\n- [x] closed\n")
        await vg.ok("search_text", query="made")  # the caller's own writes are in the index
        assert await ix.counts() == await _every_table(ix)
        (root / "Moved").mkdir()
        (root / "Made.md").rename(root / "Moved" / "Made.md")
        await ix.apply([FileChange("moved", "Moved/Made.md", old_path="Made.md", origin="external")])
        assert await ix.counts() == await _every_table(ix)
        assert (await ix.counts())["tags"] == (await _every_table(ix))["tags"]
        assert ix._counts.full_counts == seeded


async def test_a_reconcile_carries_the_counts_over_its_adds_changes_and_deletes(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault(NOTES)
    async with started(root, index={"watch": False}) as vg:
        ix, seeded = await _counted(vg)
        rounds: list[dict[str, str | None]] = [
            {  # added (one resolves a link), changed (a task closed, links gone), deleted
                "New.md": "# New\n\n[[A]] [[Nowhere]] #fresh\n- [ ] n\n",
                "Missing.md": "# Missing\n\n## Two\n",
                "Hub.md": "# Hub\n\nonly words #shared\n- [x] done one\n",
                "A.md": None,
            },
            {  # a note comes back, another resolves a link the last round left, a canvas goes
                "A.md": "# A again\n\n[[Hub]] #shared #back\n",
                "Nowhere.md": "# Nowhere\n",
                "Deep/Page.md": "# Page\n\n[[New]] [[Missing]]\n- [ ] deep\n",
                "Board.canvas": None,
                "Missing.md": None,
            },
        ]
        for n, changes in enumerate(rounds):
            for path, text in changes.items():
                if text is None:
                    (root / path).unlink()
                else:
                    (root / path).parent.mkdir(parents=True, exist_ok=True)
                    (root / path).write_text(text, encoding="utf-8")
            await ix.reconcile()
            assert await ix.counts() == await _every_table(ix), n
        await ix.reconcile(full=True)  # every note read again
        assert await ix.counts() == await _every_table(ix)
        await _external(ix, root, "Gone.md", "# Gone\n", "created")  # links named Gone: none
        assert await ix.counts() == await _every_table(ix)
        assert ix._counts.full_counts == seeded


async def test_a_bulk_reconcile_makes_the_next_read_count_every_table(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "BULK_THRESHOLD", 2)
    root = make_vault(NOTES)
    async with started(root, index={"watch": False}) as vg:
        ix, seeded = await _counted(vg)
        for name in ("X", "Y", "Z"):
            (root / f"{name}.md").write_text(f"# {name}\n- [ ] {name} [[A]]\n", encoding="utf-8")
        await ix.reconcile()
        assert await ix.counts() == await _every_table(ix)
        assert ix._counts.full_counts == seeded + 1


async def test_a_failed_write_makes_the_next_read_count_every_table(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault(NOTES)
    async with started(root, index={"watch": False}) as vg:
        ix, seeded = await _counted(vg)

        def refuse(*args: object, **kwargs: object) -> int:
            raise RuntimeError("resolution failed")

        monkeypatch.setattr(rows, "resolve_links", refuse)
        with pytest.raises(RuntimeError):
            await _external(ix, root, "Later.md", "# Later\n- [ ] x\n", "created")
        monkeypatch.undo()
        assert await ix.counts() == await _every_table(ix)
        assert ix._counts.full_counts == seeded + 1


async def test_a_write_of_many_notes_makes_the_next_read_count_every_table(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(status, "KEPT_MAX_PATHS", 2)
    root = make_vault(NOTES)
    async with started(root, index={"watch": False}) as vg:
        ix, seeded = await _counted(vg)
        for name in ("X", "Y", "Z"):
            (root / f"{name}.md").write_text(f"# {name}\n- [ ] {name}\n", encoding="utf-8")
        await ix.apply([FileChange("created", f"{n}.md", origin="external") for n in "XYZ"])
        assert await ix.counts() == await _every_table(ix)
        assert ix._counts.full_counts == seeded + 1
