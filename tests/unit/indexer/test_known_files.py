"""The files the index knows (`KnownFiles`): after random adds and removals, one path or many at
once, the files under any folder are those a test of every path finds, and so is what a deleted
folder, a path the index never held or a folder moved in expands to; a folder deleted on disk
leaves the index as a reconcile from scratch would."""

from __future__ import annotations

import random
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from service.indexer.apply import expand
from service.indexer.known import MANY, KnownFiles
from service.vault.events import FileChange
from tests.conftest import started

LINKS = "SELECT n.path, l.target_raw, l.target_path FROM links l JOIN notes n ON n.id = l.src_id ORDER BY 1, 2, 3"
FOLDERS = ["", "A/", "A/B/", "A/B/C/", "A-b/", "A0/", "AB/", "a/", "Ü/", "Ü/x/", "A/B 2/"]


def _under(files: set[str], folder: str) -> list[str]:
    prefix = folder.rstrip("/") + "/"
    return sorted(f for f in files if f.startswith(prefix))


def _pool(rng: random.Random) -> list[str]:
    return [
        f"{folder}{name}" for folder in FOLDERS for name in rng.sample(["n.md", "m.md", "x.png", "Z.md", "é.md"], 4)
    ]


@pytest.mark.parametrize("seed", range(6))
def test_after_random_steps_the_files_under_a_folder_are_those_found_from_scratch(seed: int) -> None:
    rng = random.Random(seed)
    pool = _pool(rng)
    start = set(rng.sample(pool, len(pool) // 2))
    known, truth = KnownFiles(sorted(start)), set(start)
    for step in range(200):
        many = rng.random() < 0.2  # one pass over the list
        picked = rng.sample(pool, rng.randint(MANY, len(pool)) if many else rng.randint(1, 4))
        if rng.random() < 0.5:
            known.add(picked)
            truth.update(picked)
        else:
            known.discard(picked)
            truth.difference_update(picked)
        assert known.ordered() == sorted(truth) and len(known) == len(truth), step
        for folder in (*FOLDERS[1:], "A/B", "Nowhere/", "A/B/C/n.md"):
            assert known.under(folder) == _under(truth, folder), (step, folder)
        assert all((p in known) == (p in truth) for p in pool)


def test_a_deletion_or_a_folder_moved_in_expands_as_a_test_of_every_path_would(tmp_path: Path) -> None:
    from service.vault.paths import VaultPaths

    rng = random.Random(7)
    files = set(rng.sample(_pool(rng), 30))
    known = KnownFiles(sorted(files))
    paths = VaultPaths(tmp_path)
    for folder in ("A", "A/B/", "Ü", "Nowhere", "A/B 2"):
        _, old = expand(FileChange("deleted", folder), paths, known)
        assert old == [folder, *_under(files, folder)]
    (tmp_path / "Moved" / "C").mkdir(parents=True)
    (tmp_path / "Moved" / "C" / "n.md").write_text("x", encoding="utf-8")
    new, old = expand(FileChange("moved", "Moved", old_path="A/B"), paths, known)
    assert new == ["Moved/C/n.md"]
    assert sorted(old) == sorted({"A/B/C/n.md", *_under(files, "A/B")})


async def test_a_folder_deleted_on_disk_leaves_the_index_as_a_reconcile_would(make_vault: Callable[..., Path]) -> None:
    notes = {f"{folder}{name}": f"# {name}\n[[n]]\n" for folder in FOLDERS for name in ("n.md", "m.md")}
    root = make_vault({**notes, "A/B/pic.png": "png", "A0/pic.png": "png"})
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
        ix = vg.indexer()
        shutil.rmtree(root / "A" / "B")
        await ix.apply([FileChange("deleted", "A/B", origin="external")], only_if_changed=True)
        await ix.apply([FileChange("deleted", "Never/held.md", origin="external")], only_if_changed=True)
        after = ix.files()
        indexed = await ix.db.fetchall(LINKS)
        assert not [f for f in after if f.startswith("A/B/")] and "A/B 2/n.md" in after and "A0/pic.png" in after
        await ix.reconcile(full=True)
        assert ix.files() == after
        assert await ix.db.fetchall(LINKS) == indexed
