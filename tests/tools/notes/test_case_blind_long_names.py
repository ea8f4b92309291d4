"""A case-only rename of a note with a long name on a case-blind disk (review R1 s63 F4): the
temporary name `stem (renaming token).ext` is 20 bytes longer than the name, so a name within 20
bytes of NAME_MAX (255) could not take it: the dry run said yes, the apply answered path_invalid
about 'mmm… (renaming c5154099).md', a file the caller never named, and the rename's crash record
stayed in the vault folder (synced by iCloud/Syncthing) until a restart. The temporary name is now
cut to fit; a first rename refused for any reason removes its record; the start-up finish knows the
cut name. The disk is made case-blind as in test_case_blind_rename.py."""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from service.vault import case_records, case_renames, dirfd, temps
from tests.case_rename_killed import case_blind as make_case_blind
from tests.conftest import e2e, started
from tests.e2e.calls import ok

STEM = "m" * 240  # 243 bytes with '.md': a name the disk takes, its temporary name (263) it did not
WIDE = "é" * 120  # 240 bytes in UTF-8: the cut must fall between characters


@pytest.fixture
def case_blind(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    make_case_blind(tmp_path, monkeypatch.setattr)
    yield


def _records(root: Path) -> list[str]:
    return [n for n in os.listdir(root) if n.endswith(".vgcase")]


@pytest.mark.parametrize("stem", [STEM, WIDE], ids=["ascii", "two-byte"])
async def test_a_long_name_renamed_in_letter_case_on_a_case_blind_disk(
    case_blind: None, make_vault: Callable[..., Path], stem: str
) -> None:
    root = make_vault({f"Inbox/{stem}.md": "# m\n", "Home.md": f"see [[Inbox/{stem}]]\n"})
    new = stem.upper()
    async with started(root) as vg:
        await vg.indexed()
        preview = await vg.ok("rename_note", path=f"Inbox/{stem}", new_path=new, dry_run=True)
        assert preview["moved"] == [{"old_path": f"Inbox/{stem}.md", "new_path": f"Inbox/{new}.md"}]
        done = await vg.ok("rename_note", path=f"Inbox/{stem}", new_path=new, dry_run=False)
        assert done["path"] == f"Inbox/{new}.md"
        assert os.listdir(root / "Inbox") == [f"{new}.md"] and vg.read(f"Inbox/{new}.md") == "# m\n"
        assert _records(root) == []
        await vg.indexed()
        links = await vg.ok("get_backlinks", path=f"Inbox/{new}")
        assert [i["path"] for i in links["items"]] == ["Home.md"]


async def test_a_long_name_renamed_in_letter_case_over_http(case_blind: None, make_vault: Callable[..., Path]) -> None:
    root = make_vault({f"Inbox/{STEM}.md": "# m\n"})
    async with e2e(root, index={"watch": False}) as (url, h), Client(url, mode="auto") as c:
        await h.indexed()
        args = {"path": f"Inbox/{STEM}", "new_path": STEM.upper()}
        assert (await ok(c, "rename_note", args, dry_run=False))["path"] == f"Inbox/{STEM.upper()}.md"
        assert os.listdir(root / "Inbox") == [f"{STEM.upper()}.md"] and _records(root) == []


def test_the_temporary_name_fits_and_is_cut_between_characters() -> None:
    for name in [f"{STEM}.md", f"{WIDE}.md", "é" * 127, "x." + "e" * 250, "short.md"]:
        temp = case_records.temp_name(name, "0123abcd")
        assert len(temp.encode()) <= case_records.NAME_MAX, name
        assert temp.endswith(" (renaming 0123abcd).md" if name.endswith(".md") else " (renaming 0123abcd)"), temp
    assert case_records.temp_name("short.md", "0123abcd") == "short (renaming 0123abcd).md"  # unchanged below the limit


def test_a_refused_first_rename_leaves_no_record(
    case_blind: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "v"
    root.mkdir()
    (root / "meeting notes.md").write_text("# m\n")

    def refuse(*args: Any) -> None:
        raise OSError(errno.EACCES, "refused")

    monkeypatch.setattr(dirfd, "_rename_noreplace", refuse)
    with pytest.raises(OSError):
        dirfd.rename(root, "meeting notes.md", "Meeting Notes.md", replace=False)
    assert os.listdir(root) == ["meeting notes.md"]  # no record left beside it


def test_a_crash_in_a_long_name_s_rename_is_finished_at_start(tmp_path: Path) -> None:
    root = tmp_path / "v"
    root.mkdir()
    temp = case_records.temp_name(f"{STEM}.md", "0000000c")
    (root / temp).write_text("mid-rename", encoding="utf-8")
    record = root / f".0000000c.p999999h{temps.HOST}.vgcase"  # a writer long gone
    record.write_text(json.dumps({"src": f"{STEM}.md", "temp": temp, "dst": f"{STEM.upper()}.md"}), encoding="utf-8")
    assert case_renames.finish(root) == [f"{STEM.upper()}.md"]
    assert os.listdir(root) == [f"{STEM.upper()}.md"]
