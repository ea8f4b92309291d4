"""The digest's window and its counts. While no digest was kept, each run's digest covered the one
before it, back to the first one not kept, with no end: weeks of changes in one digest. And the
digest read the 200 newest notes changed, memory notes among them, and counted only those: 230
notes changed were "200 notes changed", and memory writes newer than the notes left the notes
out of the digest. Found checking the digest's window (B3 s78, B2 s77's note). Now the window
starts where the last digest kept ended, at most `WINDOW_DAYS` back, and every note changed in
it is counted, the newest of each folder listed by name and the others as "… and N more"."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from service.plane import digest as digest_module
from service.plane.digest import NOTES_LISTED, WINDOW_DAYS
from tests.conftest import Harness, started


async def _digest(vg: Harness) -> dict[str, object]:
    [digest] = (await vg.ok("list_findings", kind="digest"))["items"]
    return digest


async def test_every_note_changed_is_counted(make_vault: Callable[..., Path]) -> None:
    vault = {f"Notes/N{i:03d}.md": f"# N{i:03d}\n\nThe note number {i} of the batch.\n" for i in range(230)}
    vault |= {f"Memory/E{i:03d}.md": f"---\nname: E{i:03d}\n---\n# E{i:03d}\n" for i in range(210)}
    root = make_vault(vault)
    hour_ago = time.time() - 3600
    for i in range(230):  # the notes an hour old, the memory notes newer
        os.utime(root / f"Notes/N{i:03d}.md", (hour_ago + i, hour_ago + i))
    async with started(root) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", jobs=["digest"], wait=True)
        digest = await _digest(vg)
        detail = digest["detail"]
        assert detail["notes"] == 230, digest  # type: ignore[index]
        text = str(detail["text"])  # type: ignore[index]
        assert "230 notes changed" in text and "## Notes (230)" in text, text
        assert "[[Notes/N229|N229]]" in text and f"… and {230 - NOTES_LISTED} more" in text, text
        assert text.count("[[Notes/") == NOTES_LISTED, text


async def test_the_window_of_digests_not_kept_is_bounded(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Home.md": "# Home\n\nThe home page.\n", "Old.md": "# Old\n\nAn old plan, ten days old.\n"})
    ten_days = time.time() - 10 * 86_400
    os.utime(root / "Old.md", (ten_days, ten_days))
    async with started(root) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", jobs=["digest"], wait=True)
        first = await _digest(vg)
        assert "[[Old|Old]]" not in str(first["detail"]["text"])  # type: ignore[index]
        month_ago = "2020-01-01T00:00:00Z"  # an open digest begun long ago: none kept since
        await vg.app.plane.state.run_write(
            lambda c: c.execute(
                "UPDATE plane_findings SET detail = json_set(detail, '$.since', ?) WHERE id = ?",
                (month_ago, first["id"]),
            )
        )
        await vg.ok("run_consolidation", jobs=["digest"], wait=True)
        later = await _digest(vg)
        assert later["id"] == first["id"], later
        since = str(later["detail"]["since"])  # type: ignore[index]
        bound = time.time() - WINDOW_DAYS * 86_400 - 60
        assert since > time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(bound)), since
        assert "[[Old|Old]]" not in str(later["detail"]["text"]), json.dumps(later["detail"])  # type: ignore[index]


def _older_folder(make_vault: Callable[..., Path]) -> Path:
    """210 notes changed an hour ago in New/, 3 two hours ago in Old/: Old/ is past the 200 newest."""
    vault = {f"New/N{i:03d}.md": f"# N{i:03d}\n\nThe note number {i} of the batch.\n" for i in range(210)}
    vault |= {f"Old/O{i}.md": f"# O{i}\n\nAn older change, number {i}.\n" for i in range(3)}
    root = make_vault(vault)
    now = time.time()
    for rel, at in [
        *((f"New/N{i:03d}.md", now - 3600 + i) for i in range(210)),
        *((f"Old/O{i}.md", now - 7200) for i in range(3)),
    ]:
        os.utime(root / rel, (at, at))
    return root


async def test_a_folder_older_than_the_newest_changes_is_named(make_vault: Callable[..., Path]) -> None:
    """The digest read the 200 newest changed notes to list: a folder whose changes were older
    showed "## Old (3)" and "… and 3 more", none named (B5 s79). Each folder's newest are listed now."""
    async with started(_older_folder(make_vault)) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", jobs=["digest"], wait=True)
        text = str((await _digest(vg))["detail"]["text"])  # type: ignore[index]
        assert "## Old (3)" in text, text
        assert all(f"[[Old/O{i}|O{i}]]" in text for i in range(3)), text
        assert "… and 3 more" not in text, text
        assert text.count("[[New/") == NOTES_LISTED and f"… and {210 - NOTES_LISTED} more" in text, text


async def test_a_folder_past_the_bound_says_it_is_not_listed(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past `LISTED_IN_ALL` a folder gets no name: the digest says so, not "… and N more" of none."""
    monkeypatch.setattr(digest_module, "LISTED_IN_ALL", 1)
    async with started(_older_folder(make_vault)) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", jobs=["digest"], wait=True)
        text = str((await _digest(vg))["detail"]["text"])  # type: ignore[index]
        assert "[[New/N209|N209]]" in text and text.count("[[") == 1, text  # the newest of the first folder
        assert "## Old (3)\n\n- 3 notes, none listed (a digest lists 1 notes at most)" in text, text


async def test_the_entities_not_listed_are_counted(vg: Harness) -> None:
    """The memory section listed 50 names of 55 entities updated and said nothing of the other 5."""
    made = [{"name": f"Ent {i:02d}", "entityType": "person", "observations": []} for i in range(NOTES_LISTED + 5)]
    await vg.ok("create_entities", entities=made)
    await vg.ok("run_consolidation", jobs=["digest"], wait=True)
    text = str((await _digest(vg))["detail"]["text"])  # type: ignore[index]
    assert f"## Memory ({NOTES_LISTED + 5} entities updated)" in text, text
    memory = text.split("## Memory", 1)[1]
    assert memory.count("\n- Ent ") == NOTES_LISTED and memory.rstrip().endswith("- … and 5 more"), memory
