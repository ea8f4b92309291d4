"""kill -9 while a hub rename writes a chunk of its link rewrites at once (`service.vault.commit.
Together`), then a new server on the same data folder: each note is old or new, never torn; the
killed chunk's notes not yet renamed left a temp file each, and no other; the start rolls the
whole rename back from the journal, and once the temp files are swept the vault is as before,
byte for byte.

The process that dies is tests/reliability/chunk_killed.py: it holds every write of the first
chunk (half of them before their rename, half after) and SIGKILLs itself once all are held. The
temp files are swept as a later start's process sweeps them (tests/reliability/
test_newest_writers_killed.py does the same): a start within a second of the kill leaves them
to the next one, as a writer of another live process might still be using them.

Killed once the whole first chunk is renamed, right before the chunk fsyncs its folders (once
each, `service.vault.chunks`): the chunk's notes are new, no temp file is left, and the start rolls
the rename back the same way.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.vault.temps import sweep
from tests.conftest import snapshot, started
from tests.killed import run_until_killed
from tests.reliability import chunk_killed as c


async def test_a_rename_killed_mid_chunk_leaves_each_note_whole_and_is_rolled_back(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault(c.CHUNK_VAULT)
    before = snapshot(root)
    assert await run_until_killed("tests.reliability.chunk_killed", str(root)) == -signal.SIGKILL
    now = snapshot(root)
    temps = sorted(k for k in now if k.endswith(".vgtmp"))
    renamed, cut = c.CHUNK[1::2], c.CHUNK[0::2]
    assert [t.rpartition("/")[2].split(".")[1] for t in temps] == [p.rpartition("/")[2][:-3] for p in cut], temps
    assert all(t.startswith("Notes/.") for t in temps), temps
    assert "Hub.md" not in now and now["Centre.md"] == before["Hub.md"]  # moved first
    for rel in renamed:  # the new bytes, whole
        assert now[rel] == before[rel].replace(b"[[Hub]]", b"[[Centre]]"), rel
    for rel in [*cut, *(f"Notes/n{i:03}.md" for i in range(c.TOGETHER, c.NOTES))]:  # the old bytes
        assert now[rel] == before[rel], rel
    async with started(root) as vg:  # the start rolls the cut rename back, whole
        rows: list[Any] = await vg.app.state.fetchall("SELECT kind, status FROM plan_runs ORDER BY started_at")
        assert [tuple(r) for r in rows] == [("bulk", "interrupted"), ("undo", "done")], rows
        assert sweep(root, temps, started=time.time()) == temps
        assert snapshot(root) == before
        await vg.indexed()
        assert not (await vg.ok("rename_note", path="Hub", new_path="Centre")).get("error")  # and runs whole now
    assert all(b"[[Centre]]" in (root / f"Notes/n{i:03}.md").read_bytes() for i in range(c.NOTES))


async def test_a_rename_killed_before_its_chunk_synced_its_folders_is_rolled_back(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault(c.CHUNK_VAULT)
    before = snapshot(root)
    assert await run_until_killed("tests.reliability.chunk_killed", str(root), "synced") == -signal.SIGKILL
    now = snapshot(root)
    assert not [k for k in now if k.endswith(".vgtmp")]
    assert "Hub.md" not in now and now["Centre.md"] == before["Hub.md"]
    for rel in c.CHUNK:  # the whole chunk renamed, each note whole
        assert now[rel] == before[rel].replace(b"[[Hub]]", b"[[Centre]]"), rel
    for rel in (f"Notes/n{i:03}.md" for i in range(c.TOGETHER, c.NOTES)):
        assert now[rel] == before[rel], rel
    async with started(root) as vg:
        rows: list[Any] = await vg.app.state.fetchall("SELECT kind, status FROM plan_runs ORDER BY started_at")
        assert [tuple(r) for r in rows] == [("bulk", "interrupted"), ("undo", "done")], rows
        assert snapshot(root) == before
        await vg.indexed()
        assert not (await vg.ok("rename_note", path="Hub", new_path="Centre")).get("error")
    assert all(b"[[Centre]]" in (root / f"Notes/n{i:03}.md").read_bytes() for i in range(c.NOTES))
