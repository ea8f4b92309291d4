"""Names that show nothing or reorder themselves, through the dispatch chain: a writer never creates
a note or folder whose name holds a bidi override ("evil\u202egnp.md" shows as "evilmd.png"), a
zero-width space, word joiner or BOM (an invisible twin of "Welcome.md"), a line separator or a C1
control character, a soft hyphen, a Hangul filler, a tag character outside a flag, a variation
selector after a letter (`path_invalid`, nothing written); a note already named so is read and
edited; the zero-width joiners that Persian, Indic scripts and emoji need, flags and emoji or
ideograph variation selectors are allowed."""

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
    # blank by design (T1 s62 #9): soft hyphen, combining grapheme joiner, Hangul fillers, Khmer
    # inherent vowel; a tag character outside a flag; variation selectors after a letter
    "Ho\u00adme.md",
    "Ho\u034fme.md",
    "Home\u3164.md",
    "\u115fHome.md",
    "Ho\uffa0me.md",
    "Ho\u17b5me.md",
    "Ho\U000e0041me.md",
    "Home\ufe0f.md",
    "Ho\U000e0100me.md",
    # a zero-width (non-)joiner between Latin letters or at an end joins nothing (R4 s62 F4)
    "Wel\u200dcome.md",
    "Wel\u200ccome.md",
    "\u200dWelcome.md",
    # a combining grapheme joiner not between two combining marks; U+FE01 after a Myanmar letter
    "e\u0301\u034f.md",
    # ... nor between two marks already in canonical order or of one class, where it blocks no
    # reordering and the name passes for the one without it (review R1 s63 F6)
    "Plan x\u0323\u034f\u0301.md",
    "Plan x\u0301\u034f\u0301.md",
    "\u1000\ufe01.md",
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
    twins = ("Wel\u200bcome.md", "Ho\u00adme.md", "Home\u3164.md", "Ho\U000e0041me.md")
    root = make_vault({**VAULT, **dict.fromkeys(twins, "# Twin\n")})
    async with started(root) as vg:
        for twin in twins:
            assert (await vg.ok("read_note", path=twin))["content"] == "# Twin\n"
            await vg.ok("append_note", path=twin, content="more")
        await vg.ok("delete_note", path="Home\u3164.md")
    assert all((root / twin).read_text(encoding="utf-8").endswith("more") for twin in twins[:2])
    assert not (root / "Home\u3164.md").exists()


async def test_joiners_that_scripts_and_emoji_need_are_allowed(make_vault: Callable[..., Path]) -> None:
    persian = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645.md"  # a zero-width non-joiner inside a word
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467.md"  # an emoji joined by zero-width joiners
    flag = "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f England.md"  # tag characters
    styled = "\u2764\ufe0f \u2139\ufe0f 1\ufe0f\u20e3.md"  # emoji style: a symbol, U+2139, a keycap
    variant = "\u845b\U000e0100 family.md"  # an ideograph's variant (ideographic variation selector)
    async with started(make_vault(VAULT)) as vg:
        for name in (persian, family, flag, styled, variant):
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


@pytest.mark.parametrize(
    "name",
    [
        "\U00031350\U000e0100.md",  # a CJK Extension H ideograph's variant (3.11's Unicode data has no name for it)
        "\U0002ebf0\U000e0100 family.md",  # Extension I
        "\u1000\ufe00\u1002\ufe00.md",  # Myanmar standardized variation sequences
        "\u05d1\u05b8\u034f\u05b7\u05ea.md",  # pointed Hebrew: the joiner keeps the marks' order under NFC
    ],
)
async def test_variation_sequences_and_the_grapheme_joiner_that_scripts_need_are_allowed(
    make_vault: Callable[..., Path], name: str
) -> None:
    """Names the invisible-character rules refused though every character shows or is Unicode's own
    sequence (review R4 s62 F5); the same characters elsewhere are still refused (`INVISIBLE`)."""
    root = make_vault(VAULT)
    async with started(root) as vg:
        out = await vg.ok("create_note", path=f"N/{name}", content="x")
        assert out["path"] == f"N/{name}" and (root / "N" / name).read_text(encoding="utf-8") == "x"
        await vg.confirmed("move_note", path=f"N/{name}", new_path=name)
        assert (await vg.ok("read_note", path=name))["content"] == "x"
