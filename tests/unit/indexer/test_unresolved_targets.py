"""Unresolved links found by their targets' names when a note appears (`unresolved.py`): after
random creates, edits, moves and deletes every link resolves as a resolution of every link
from scratch would, the targets are read from the index now and then rather than per note, a
reconcile carries them over its writes, and a failed write makes the next new note read them
again."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

from service.graph.linkpath import PathSet
from service.indexer import rows
from service.indexer.runner import VaultIndexer
from service.vault.events import FileChange
from tests.conftest import started

NAMES = ["Alpha", "alpha", "Beta", "Ünïcode", "ÜNÏCODE", "Deep/Alpha", "Other/beta", "Gamma", "Sub/Gamma"]
FOLDERS = ["", "Sub/", "Other/", "Deep/"]


def _text(rng: random.Random) -> str:
    links = " ".join(f"[[{rng.choice(NAMES)}]]" for _ in range(rng.randint(0, 4)))
    return f"# note\n\n{links}\n"


async def _links_as_resolved_from_scratch(ix: VaultIndexer) -> None:
    found = await ix.db.fetchall(
        "SELECT l.target_raw, n.path, l.target_path FROM links l JOIN notes n ON n.id = l.src_id WHERE l.vault_id = ?",
        (ix.vault.id,),
    )
    files = [str(r[0]) for r in await ix.db.fetchall("SELECT path FROM notes WHERE vault_id = ?", (ix.vault.id,))]
    paths = PathSet(files)
    wrong = [(raw, src, held) for raw, src, held in found if paths.resolve(raw, src) != held]
    assert wrong == []


async def test_links_resolve_as_from_scratch_after_random_changes(make_vault: Callable[..., Path]) -> None:
    rng = random.Random(7)
    root = make_vault({f"N{i}.md": _text(rng) for i in range(6)})
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
        ix = vg.indexer()
        present = {f"N{i}.md" for i in range(6)}
        for step in range(60):
            roll = rng.random()
            if roll < 0.45 or len(present) < 3:
                path = f"{rng.choice(FOLDERS)}{rng.choice(NAMES).split('/')[-1]}.md"
                (root / path).parent.mkdir(parents=True, exist_ok=True)
                (root / path).write_text(_text(rng), encoding="utf-8")
                change = FileChange("created" if path not in present else "modified", path, origin="external")
                present.add(path)
            elif roll < 0.65:
                path = rng.choice(sorted(present))
                (root / path).write_text(_text(rng), encoding="utf-8")
                change = FileChange("modified", path, origin="external")
            elif roll < 0.85:
                old = rng.choice(sorted(present))
                path = f"{rng.choice(FOLDERS)}{rng.choice(NAMES).split('/')[-1]}{step}.md"
                (root / path).parent.mkdir(parents=True, exist_ok=True)
                (root / old).rename(root / path)
                present.discard(old)
                present.add(path)
                change = FileChange("moved", path, old_path=old, origin="external")
            else:
                path = rng.choice(sorted(present))
                (root / path).unlink()
                present.discard(path)
                change = FileChange("deleted", path, origin="external")
            await ix.apply([change])
            await _links_as_resolved_from_scratch(ix)
        # Read again only when a held link was stored again since (its id gone): not every step.
        assert 1 <= ix._unresolved.reads < 30


async def test_a_reconcile_carries_the_targets_and_a_failed_write_makes_them_read_again(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({"A.md": "[[Later]] [[Again]] [[Third]] [[Solo]]\n", "Solo.md": "# Solo\n"})
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
        ix = vg.indexer()
        (root / "Later.md").write_text("# Later\n", encoding="utf-8")
        await ix.apply([FileChange("created", "Later.md", origin="external")])
        assert ix._unresolved.reads == 1
        (root / "Solo.md").unlink()  # its link becomes unresolved after the targets were read
        await ix.apply([FileChange("deleted", "Solo.md", origin="external")])
        (root / "Elsewhere").mkdir()
        (root / "Elsewhere" / "solo.md").write_text("# solo\n", encoding="utf-8")
        await ix.apply([FileChange("created", "Elsewhere/solo.md", origin="external")])
        await _links_as_resolved_from_scratch(ix)
        assert ix._unresolved.reads == 1
        (root / "B.md").write_text("[[Fourth]]\n", encoding="utf-8")
        (root / "Later.md").unlink()  # A's link to it is unresolved again
        await ix.reconcile()  # its batch adds B's target, its finish Later's
        await _links_as_resolved_from_scratch(ix)
        (root / "Fourth.md").write_text("# Fourth\n", encoding="utf-8")
        (root / "Sub").mkdir()
        (root / "Sub" / "later.md").write_text("# later\n", encoding="utf-8")
        await ix.apply([FileChange("created", p, origin="external") for p in ("Fourth.md", "Sub/later.md")])
        assert ix._unresolved.reads == 1
        await _links_as_resolved_from_scratch(ix)

        real = rows.upsert_each

        def refuse(*args: object, **kwargs: object) -> object:
            raise RuntimeError("store failed")

        monkeypatch.setattr(rows, "upsert_each", refuse)
        (root / "C.md").write_text("[[Fifth]]\n", encoding="utf-8")
        with pytest.raises(RuntimeError):
            await ix.apply([FileChange("created", "C.md", origin="external")])
        monkeypatch.setattr(rows, "upsert_each", real)
        await ix.apply([FileChange("created", "C.md", origin="external")])
        (root / "Fifth.md").write_text("# Fifth\n", encoding="utf-8")
        await ix.apply([FileChange("created", "Fifth.md", origin="external")])
        assert ix._unresolved.reads == 2
        await _links_as_resolved_from_scratch(ix)
        assert (await vg.ok("find_broken_links"))["items"] != []  # Again, Third


async def test_a_target_whose_first_link_went_is_still_found(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"A.md": "[[Ghost]]\n", "B.md": "[[Ghost]]\n"})
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
        ix = vg.indexer()
        (root / "Other.md").write_text("# Other\n", encoding="utf-8")
        await ix.apply([FileChange("created", "Other.md", origin="external")])  # the targets are read
        first = await ix.db.fetchone(
            "SELECT n.path FROM links l JOIN notes n ON n.id = l.src_id WHERE l.target_raw = 'Ghost' ORDER BY l.id"
        )
        assert first is not None
        (root / first[0]).unlink()  # the first link to Ghost goes; the other stays, not stored again
        await ix.apply([FileChange("deleted", first[0], origin="external")])
        (root / "Ghost.md").write_text("# Ghost\n", encoding="utf-8")
        await ix.apply([FileChange("created", "Ghost.md", origin="external")])
        await _links_as_resolved_from_scratch(ix)
        assert (await vg.ok("find_broken_links"))["items"] == []
