"""A server killed (SIGKILL) while the index moves a renamed folder's rows (`indexer.relocate`: each
note's row given its new path, its links resolved again, in the batch's writer transaction) leaves
an index the next start completes: the transaction never committed, the move's journal puts the
files back as the start begins (`plans.recovery`), its reconcile brings the index in line, and the
index is then the one a fresh index of the vault builds (every row by path, the word index's
terms, both full-text indexes' integrity).

`python -m tests.reliability.test_move_killed VAULT MARKER` is the process that dies: it indexes
VAULT, renames the folder Projects/Alpha through the dispatch chain and holds the writer's
transaction once the rows are moved, writes MARKER and waits.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
import threading
from pathlib import Path
from typing import Any

from service.settings import load_settings
from tests.conftest import Harness, started, write_files
from tests.killed import kill_when_held
from tests.tools.notes.test_move_keeps_rows import VAULT, _dump

SETTINGS: dict[str, Any] = {"embeddings": {"provider": "none"}, "index": {"watch": False}}


async def _index(root: Path, cache: Path | None = None) -> dict[str, list[tuple[Any, ...]]]:
    storage = {} if cache is None else {"storage": {"cache_dir": cache}}
    async with started(root, **SETTINGS, **storage) as vg:
        await vg.indexed()
        await vg.indexer().trigram.settled()
        return _dump(Path(vg.app.services.db.path))


async def test_a_server_killed_while_it_moves_a_folders_rows_is_completed_on_the_next_start(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    write_files(root, VAULT)
    marker = tmp_path / "held"
    await kill_when_held("tests.reliability.test_move_killed", root, marker)
    assert (root / "Projects/Alpha 2/Plan.md").is_file() and not (root / "Projects/Alpha/Plan.md").exists()
    after = await _index(root)
    fresh = tmp_path / "fresh"
    shutil.copytree(root, fresh, ignore=shutil.ignore_patterns(".vaultgate"))
    assert after == await _index(fresh, tmp_path / "fresh-cache")
    # the move's journal (`plans.recovery`) undid the cut move as the next start began
    assert (root / "Projects/Alpha/Plan.md").is_file() and not (root / "Projects/Alpha 2").exists()
    assert "Projects/Alpha/Plan.md" in {row[0] for row in after["notes"]}


def _hold_after_relocating(marker: Path) -> None:
    from service.indexer import relocate

    original = relocate.store

    def held(*args: Any, **kwargs: Any) -> None:
        original(*args, **kwargs)
        if args[2]:  # rows were moved, in the writer's transaction, not committed
            marker.write_text("held\n")
            threading.Event().wait()  # the writer's thread, forever: the test kills this process

    relocate.store = held


async def _main(root: Path, marker: Path) -> None:
    from service.app import VaultgateApp

    settings = load_settings(root, **SETTINGS)
    app = VaultgateApp(settings)
    async with app.running():
        vg = Harness(app, root)
        await vg.indexed()
        _hold_after_relocating(marker)
        await vg.ok("rename_note", path="Projects/Alpha", new_path="Alpha 2")
        await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(_main(Path(sys.argv[1]), Path(sys.argv[2])))
