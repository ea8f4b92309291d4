"""A bulk_create_notes killed (SIGKILL) in the middle of a note's write leaves nothing it made (U12,
session 78). The next start rolls the call back from its journal: the notes it wrote are removed
and the folders it made, when empty. The write that was cut had written its temp file
(`.n1.md.<random>.p<pid>h<host>.vgtmp`) beside the note, so that folder was not empty: it stayed,
and once the index's scan swept the temp file it stayed empty (R7's question, session 77). The
rollback now removes a dead writer's temp files from a folder it removes (`temps.sweep_in`).

`python -m tests.reliability.test_attack_killed_bulk VAULT bulk`: bulk_create_notes of `NOTES`,
killed once `New/Deep/n1.md`'s temp file is written (a create links it into place: killed there);
`... VAULT start`: a server started on VAULT (its rollback runs) and stopped, its index's scan
sweeping no temp file (in a large vault the scan reaches the folder after the rollback).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started
from tests.killed import run_until_killed

MODULE = "tests.reliability.test_attack_killed_bulk"
VAULT = {"Home.md": "# Home\n", "Old/Kept.md": "# Kept\n"}
NOTES = [
    {"path": "Old/a0.md", "content": "# a0\n"},
    {"path": "New/Deep/n0.md", "content": "# n0\n"},
    {"path": "New/Deep/n1.md", "content": "# n1\n" + "words " * 5000},
    {"path": "New/Deep/n2.md", "content": "# n2\n"},
]
CUT = "New/Deep/n1.md"


def _kill_in_create(rel: str) -> None:
    """The create of `rel` dies with its temp file written and fsynced, before it is linked into place."""
    from service.vault import files

    write = files.write_in

    def write_or_die(folder_fd: int, name: str, data: bytes, *, rel: str, **more: Any) -> os.stat_result:
        if rel == target:

            def die(*_: Any, **__: Any) -> None:
                os.kill(os.getpid(), signal.SIGKILL)

            os.link = die  # type: ignore[assignment]  # this process ends here
        return write(folder_fd, name, data, rel=rel, **more)

    target = rel
    files.write_in = write_or_die  # type: ignore[assignment]


async def _child(root: Path, mode: str) -> None:
    from service.app import VaultgateApp
    from service.settings import load_settings
    from service.types import Principal

    if mode == "start":  # the first index's scan sweeps temp files too: in a large vault it reaches
        # the folder long after the rollback ran (here it may be first: that order is the one tested)
        from service.indexer import scan

        scan.sweep = lambda *_, **__: []  # type: ignore[assignment]
    settings = load_settings(root, embeddings={"provider": "none"}, index={"watch": False})
    async with VaultgateApp(settings).running() as app:
        if mode == "bulk":
            _kill_in_create(CUT)
            await app.dispatcher.call("bulk_create_notes", {"notes": NOTES}, principal=Principal.local("test"))


def _on_disk(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if not p.relative_to(root).parts[0].startswith(".")}


async def test_a_killed_bulk_create_leaves_no_folder_it_made(make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    before = _on_disk(root)
    assert await run_until_killed(MODULE, str(root), "bulk") == -signal.SIGKILL
    left = _on_disk(root)
    assert any(p.startswith("New/Deep/.n1.md.") and p.endswith(".vgtmp") for p in left), left  # cut mid-write
    assert await run_until_killed(MODULE, str(root), "start") == 0  # the next start rolls the call back
    assert _on_disk(root) == before, "the rollback left something the killed call made"
    async with started(root) as vg:
        await vg.indexed()
        listed = await vg.ok("list_notes", folder="")
        assert sorted(i["path"] for i in listed["items"]) == sorted(VAULT)
        assert await vg.ok("bulk_create_notes", notes=NOTES)  # the same call runs whole afterwards
    assert _on_disk(root) == before | {"New", "New/Deep"} | {str(n["path"]) for n in NOTES}


if __name__ == "__main__":
    asyncio.run(_child(Path(sys.argv[1]), sys.argv[2]))
