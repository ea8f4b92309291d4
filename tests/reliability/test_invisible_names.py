"""Names that show nothing or reorder themselves, through the dispatch chain: a writer never creates
a note or folder whose name holds a bidi override ("evil\u202egnp.md" shows as "evilmd.png"), a
zero-width space, word joiner or BOM (an invisible twin of "Welcome.md"), a line separator or a C1
control character (`path_invalid`, nothing written); a note already named so is read and edited;
the zero-width joiners that Persian, Indic scripts and emoji need are allowed."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import snapshot, started

VAULT = {"Welcome.md": "# Welcome\n"}
INVISIBLE = [
    "evil\u202egnp.md",
    "Wel\u200bcome.md",
    "\ufeffWelcome.md",
    "Wel\u2060come.md",
    "x\u2028y.md",
    "a\u200eb.md",
]


@pytest.mark.parametrize("name", [*INVISIBLE, "a\u0085b.md"])
async def test_no_writer_creates_a_name_that_shows_nothing_or_reorders(
    make_vault: Callable[..., Path], name: str
) -> None:
    root = make_vault(VAULT)
    before = {k: v for k, v in snapshot(root.parent).items() if ".vaultgate" not in k}
    folder = name.removesuffix(".md")
    async with started(root) as vg:
        await vg.err("create_note", "path_invalid", path=name, content="x")
        await vg.err("create_note", "path_invalid", path=f"{folder}/Inside.md", content="x")
        await vg.err("write_note", "path_invalid", path=name, content="x", mode="create")
        await vg.err("bulk_create_notes", "path_invalid", notes=[{"path": name, "content": "x"}])
        await vg.err("copy_note", "path_invalid", path="Welcome.md", new_path=name)
        await vg.err("create_folder", "path_invalid", path=folder)
        await vg.err("move_note", "path_invalid", path="Welcome.md", new_path=name)
        await vg.err("rename_note", "path_invalid", path="Welcome.md", new_path=name)
    after = {k: v for k, v in snapshot(root.parent).items() if ".vaultgate" not in k}
    assert after == before


async def test_a_note_already_named_with_an_invisible_character_is_read_and_edited(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault({**VAULT, "Wel\u200bcome.md": "# Twin\n"})
    async with started(root) as vg:
        assert (await vg.ok("read_note", path="Wel\u200bcome.md"))["content"] == "# Twin\n"
        await vg.ok("append_note", path="Wel\u200bcome.md", content="more")
    assert (root / "Wel\u200bcome.md").read_text(encoding="utf-8").endswith("more")


async def test_joiners_that_scripts_and_emoji_need_are_allowed(make_vault: Callable[..., Path]) -> None:
    persian = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645.md"  # a zero-width non-joiner inside a word
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467.md"  # an emoji joined by zero-width joiners
    async with started(make_vault(VAULT)) as vg:
        for name in (persian, family):
            out = await vg.ok("create_note", path=name, content="x")
            assert out["path"] == unicodedata.normalize("NFC", name)


async def test_a_new_name_with_a_pipe_is_refused_not_cut_at_it(make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    before = {k: v for k, v in snapshot(root.parent).items() if ".vaultgate" not in k}
    async with started(root) as vg:
        for name in ("Q|A.md", "[[Q|A]]"):
            error = await vg.err("create_note", "path_invalid", path=name, content="x")
            assert error["details"]["reason"] == "reserved character"
        await vg.err("write_note", "path_invalid", path="Draft|final.md", content="x", mode="create")
        await vg.err("append_note", "path_invalid", path="Log|today", content="x", create_if_missing=True)
        assert (await vg.ok("read_note", path="Welcome|Hello"))["path"] == "Welcome.md"  # a wikilink's display part
    after = {k: v for k, v in snapshot(root.parent).items() if ".vaultgate" not in k}
    assert after == before
