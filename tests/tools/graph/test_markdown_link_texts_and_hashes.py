"""A Markdown link as CommonMark and Obsidian read it: its text may hold brackets, balanced or
escaped (`[a [b] c](x.md)`, `[a \\] b](x.md)`, `[![i](a.png)](b.md)`: an embed inside a link), and
its href is cut at its first '#' as written, then percent-decoded (`[x](Odd%23hash.md#Colors)` is
note 'Odd#hash.md', heading 'Colors').

Before (s82, A2 s83 item 3), the index read no link where the text held a ']' (a link around an
image was read as a link to the image, text '![i'), and decoded the href before the cut: the link
above was note 'Odd', heading 'hash.md#Colors' (unresolved; get_backlinks of 'Odd#hash.md'
empty). A move writing an href into a folder named with '#' wrote the '#' bare, a heading cut for
the index and Obsidian; it is written '%23'."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Harness, indexed_before, started

PIPE = [] if os.name == "nt" else ["Themes/Odd|pipe.md"]  # '|' cannot be in a file name on Windows
FILES = {
    "Themes/Odd#hash.md": "# Odd hash\n\n## Colors\nblue\n",
    **dict.fromkeys(PIPE, "# Odd pipe\n"),
    "Themes/Plain.md": "# Plain\n",
    "Src.md": (
        "# Src\n"
        "1 [a [b] c](Themes/Plain.md)\n"
        "2 [x](Themes/Odd%23hash.md#Colors)\n"
        "3 [esc \\] y](<Themes/Odd%23hash.md>)\n"
        + ("4 [p [q]](Themes/Odd%7Cpipe.md)\n" if PIPE else "")
        + "5 [[Note]](Themes/Plain.md) is a wikilink and text\n"
        + "6 [![i](Themes/Plain.md)](Themes/Odd%23hash.md)\n"
    ),
}
WANT = [
    (1, "Themes/Plain.md", "Themes/Plain.md", None, "a [b] c"),
    (2, "Themes/Odd#hash.md", "Themes/Odd#hash.md", "Colors", "x"),
    (3, "Themes/Odd#hash.md", "Themes/Odd#hash.md", None, "esc \\] y"),
    *([(4, "Themes/Odd|pipe.md", "Themes/Odd|pipe.md", None, "p [q]")] if PIPE else []),
    (5, None, "Note", None, None),
    (6, "Themes/Odd#hash.md", "Themes/Odd#hash.md", None, "![i](Themes/Plain.md)"),
    (6, "Themes/Plain.md", "Themes/Plain.md", None, "i"),  # an embed in the link's text
]


async def _read_as_obsidian_does(vg: Harness) -> None:
    out = (await vg.ok("get_outlinks", path="Src"))["items"]
    got = [(o["line"] - 1, o["path"] if o["resolved"] else None, o["target"], o["subpath"], o["alias"]) for o in out]
    assert got == WANT
    broken = (await vg.ok("find_broken_links"))["items"]
    assert [b["target"] for b in broken] == ["Note"], broken
    for path in ("Themes/Odd#hash.md", "Themes/Plain.md", *PIPE):
        back = (await vg.ok("get_backlinks", path=path))["items"]
        assert back and {b["path"] for b in back} == {"Src.md"}, path
    read = await vg.ok("read_note", path="Themes/Odd#hash#Colors")  # the heading the link names
    assert read["content"].startswith("## Colors")


async def test_link_texts_with_brackets_and_encoded_hashes_resolve(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        await _read_as_obsidian_does(vg)


async def test_an_index_read_the_old_way_is_read_again(make_vault: Callable[..., Path]) -> None:
    """Migration 0046 reads again the notes whose links the older reading got wrong."""
    root = make_vault(FILES)
    await indexed_before(  # the rows as the reading before 0046 wrote them
        root,
        46,
        "DELETE FROM links WHERE alias IN ('a [b] c', 'esc \\] y', 'p [q]')",
        "UPDATE links SET target_raw = 'Themes/Odd', subpath = 'hash.md#Colors', target_path = NULL WHERE alias = 'x'",
    )
    async with started(root) as vg:
        await vg.indexed()
        await _read_as_obsidian_does(vg)


@pytest.mark.parametrize(
    "written", ["[x](Notes/X.md)", "[x](<Notes/X.md>)", "[x](Notes/X.md#Head)", "[![i](Notes/X.md)](Notes/X.md)"]
)
async def test_a_move_into_a_folder_named_with_a_hash_encodes_it(make_vault: Callable[..., Path], written: str) -> None:
    root = make_vault({"Notes/X.md": "# Head\n", "Home#Contribute/Guide.md": "# Guide\n", "Src.md": written + "\n"})
    async with started(root) as vg:
        await vg.indexed()
        await vg.confirmed("move_note", path="Notes/X.md", new_path="Home#Contribute/X.md")
        await vg.settled()
        text = (root / "Src.md").read_text(encoding="utf-8")
        assert text == written.replace("Notes/X.md", "Home%23Contribute/X.md") + "\n"
        out = (await vg.ok("get_outlinks", path="Src"))["items"]
        assert {(o["path"], o["resolved"]) for o in out} == {("Home#Contribute/X.md", True)}
        assert (await vg.ok("find_broken_links"))["items"] == []
