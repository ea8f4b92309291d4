"""A case-only rename on a case-blind disk cut in two by a crash is made whole at the next start.

The rename goes through a temporary name (`meeting notes (renaming 1a2b3c4d).md`, two no-replace
renames) and writes its record first (`service.vault.case_renames`). A real process
(tests/case_rename_killed.py) is killed (SIGKILL) between the two renames; a new server on the
same vault, its disk case-blind too, finishes the rename: one note with its bytes, never the
temporary name beside it. A killed rename_note is all or nothing (`service.plans.recovery`): once
the rename is whole, its rollback puts the note back under its old name, the links as they
were. A bare rename of the file layer lands on the new name. A name taken meanwhile (in any
letter case) is never replaced: the note stays whole under its temporary name.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.case_rename_killed import case_blind
from tests.conftest import started
from tests.killed import run_until_killed

VAULT = {"Inbox/meeting notes.md": "# m\n\nthe text of the meeting\n", "Home.md": "see [[Inbox/meeting notes]]\n"}
BYTES = VAULT["Inbox/meeting notes.md"].encode()


async def _killed_between_the_renames(root: Path, *mode: str) -> str:
    """Run the rename in a child process killed between its two renames; the temporary name."""
    assert await run_until_killed("tests.case_rename_killed", str(root), *mode) == -signal.SIGKILL
    [temp] = os.listdir(root / "Inbox")  # the first rename done, the second not
    assert " (renaming " in temp and (root / "Inbox" / temp).read_bytes() == BYTES
    return temp


def _records(root: Path) -> list[str]:
    return [n for n in os.listdir(root) if n.endswith(".vgcase")]


async def test_a_rename_note_killed_between_its_renames_is_one_note_again_at_start(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault(VAULT)
    await _killed_between_the_renames(root)
    case_blind(root.parent, monkeypatch.setattr)
    async with started(root) as vg:
        await vg.indexed()
        # finished, then rolled back as the all-or-nothing call it was: its old name, its links
        assert os.listdir(root / "Inbox") == ["meeting notes.md"]
        assert (root / "Inbox/meeting notes.md").read_bytes() == BYTES and not _records(root)
        assert vg.read("Home.md") == VAULT["Home.md"]
        listed = await vg.ok("list_notes", folder="Inbox")
        assert [n["path"] for n in listed["items"]] == ["Inbox/meeting notes.md"], listed
        # and the rename asked for works now
        done = await vg.ok("rename_note", path="Inbox/meeting notes", new_path="Meeting Notes", dry_run=False)
        assert done["path"] == "Inbox/Meeting Notes.md"
        assert os.listdir(root / "Inbox") == ["Meeting Notes.md"] and not _records(root)
        assert (root / "Inbox/Meeting Notes.md").read_bytes() == BYTES


async def test_a_bare_rename_killed_between_its_renames_lands_on_its_new_name(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault(VAULT)
    await _killed_between_the_renames(root, "bare")
    case_blind(root.parent, monkeypatch.setattr)
    async with started(root) as vg:
        await vg.indexed()
        assert os.listdir(root / "Inbox") == ["Meeting Notes.md"] and not _records(root)
        assert (root / "Inbox/Meeting Notes.md").read_bytes() == BYTES
        listed = await vg.ok("list_notes", folder="Inbox")
        assert [n["path"] for n in listed["items"]] == ["Inbox/Meeting Notes.md"], listed
        assert (await vg.ok("read_note", path="Inbox/Meeting Notes"))["content"] == BYTES.decode()


async def test_a_name_taken_meanwhile_is_not_replaced_by_the_finish(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault(VAULT)
    temp = await _killed_between_the_renames(root, "bare")
    (root / "Inbox/MEETING NOTES.md").write_text("another program's note\n")  # the name, in any case
    case_blind(root.parent, monkeypatch.setattr)
    async with started(root) as vg:
        await vg.indexed()
        assert sorted(os.listdir(root / "Inbox")) == sorted(["MEETING NOTES.md", temp])
        assert (root / "Inbox/MEETING NOTES.md").read_text() == "another program's note\n"
        assert (root / "Inbox" / temp).read_bytes() == BYTES  # whole under its temporary name
        assert _records(root)  # kept: the next start tries again
