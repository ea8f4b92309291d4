"""A case-only rename's crash record is acted on only when it names what the server writes
(review R4 s63 #1, #4): a record copied in by a sync tool or written by hand moved files into
and out of the vault, renamed any note, and a folder named like a record stopped the start."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.vault import case_renames, temps

FOREIGN = [
    ("00000001", {"src": "x.md", "temp": "Home.md", "dst": "Archive/Stolen.md"}),
    ("00000002", {"src": "y.md", "temp": ".obsidian/app.json", "dst": "app.md"}),
    ("00000003", {"src": "z.md", "temp": "../outside.md", "dst": "inside.md"}),
    ("00000004", {"src": "Home.md", "temp": "Home (renaming 00000004).md", "dst": "Other.md"}),
]


def _vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "Archive").mkdir(parents=True)
    (root / ".obsidian").mkdir()
    (root / "Home.md").write_text("home", encoding="utf-8")
    (root / ".obsidian" / "app.json").write_text("{}", encoding="utf-8")
    (tmp_path / "outside.md").write_text("outside", encoding="utf-8")
    return root


def _record(root: Path, token: str, body: dict[str, str]) -> Path:
    path = root / f".{token}.p999999h{temps.HOST}.vgcase"  # a writer long gone
    path.write_text(json.dumps(body), encoding="utf-8")
    return path


def _tree(base: Path) -> list[str]:
    return sorted(p.relative_to(base).as_posix() for p in base.rglob("*") if not p.name.endswith(".vgcase"))


@pytest.mark.parametrize(("token", "body"), FOREIGN)
def test_a_record_that_names_other_files_moves_nothing(tmp_path: Path, token: str, body: dict[str, str]) -> None:
    root = _vault(tmp_path)
    before = _tree(tmp_path)
    _record(root, token, body)
    assert case_renames.finish(root) == []
    assert _tree(tmp_path) == before
    assert (root / "Home.md").read_text(encoding="utf-8") == "home"


def test_a_folder_named_like_a_record_is_skipped(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    (root / f".0000000a.p999999h{temps.HOST}.vgcase").mkdir()
    assert case_renames.finish(root) == []


def test_the_server_s_own_record_is_still_finished(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    (root / "Home (renaming 0000000b).md").write_text("mid-rename", encoding="utf-8")
    (root / "Home.md").unlink()
    _record(root, "0000000b", {"src": "Home.md", "temp": "Home (renaming 0000000b).md", "dst": "HOME.md"})
    assert case_renames.finish(root) == ["HOME.md"]
    assert (root / "HOME.md").read_text(encoding="utf-8") == "mid-rename"
