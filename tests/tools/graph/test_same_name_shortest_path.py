"""Of several files sharing a link's name, the link names the one Obsidian's lookup takes: the path
as written, else from the linking note's own folder, else the shortest path as a string
(`a/b/Note.md` before `zzzz/Note.md`; an ancestor folder counts for nothing). Observed on Obsidian
1.13.7 (pvliesdonk/markdown-vault-mcp#1350, #1380). Before, the link index, Dataview, Bases and the
mention finder took the fewest folders first: `[[Note]]` named zzzz/Note.md where Obsidian opens
a/b/Note.md, so get_backlinks, find_broken_links' counts and a move's rewrites followed another
note than the user sees linked."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import Harness, indexed_before, started

AUTHOR_VIEW = "filters:\n  and:\n    - list(author).contains(this)\nviews:\n  - type: table\n    name: Author\n"
LINKING = '---\nauthor: "[[Note]]"\n---\nsee [[Note]] and ![[pic.png]]\n'
VAULT = {
    "a/b/Note.md": "deep but short\n",
    "zzzz/Note.md": "shallow but long\n",
    "a/b/pic.png": "png",
    "zzzz/pic.png": "png",
    "Src/Source.md": LINKING,  # no candidate here: the shortest path
    "zzzz/deep/Child.md": LINKING,  # its parent folder holds one: still the shortest path
    "zzzz/Beside.md": LINKING,  # its own folder holds one: that one
    "Books.base": AUTHOR_VIEW,
}
EXPECTED = {
    "Src/Source.md": ("a/b/Note.md", "a/b/pic.png"),
    "zzzz/deep/Child.md": ("a/b/Note.md", "a/b/pic.png"),
    "zzzz/Beside.md": ("zzzz/Note.md", "zzzz/pic.png"),
}


async def _check(vg: Harness) -> None:
    for source, (note, picture) in EXPECTED.items():
        links = (await vg.ok("get_outlinks", path=source))["items"]
        assert sorted({link["path"] for link in links}) == sorted([note, picture]), source
        table = await vg.ok("search_dql", query=f'TABLE author WHERE file.path = "{source}"')
        assert table["rows"][0]["cells"][0]["value"]["path"] == note, source
    backlinks = (await vg.ok("get_backlinks", path="a/b/Note.md"))["items"]
    assert sorted({b["path"] for b in backlinks}) == ["Src/Source.md", "zzzz/deep/Child.md"]
    for note, linking in (
        ("a/b/Note.md", ["Src/Source.md", "zzzz/deep/Child.md"]),
        ("zzzz/Note.md", ["zzzz/Beside.md"]),
    ):
        rows = (await vg.ok("query_base", path="Books.base", this=note))["rows"]
        assert sorted(r["path"] for r in rows) == linking, note


async def test_a_shared_name_names_the_shortest_path(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        await _check(vg)


async def test_an_index_built_before_resolves_those_links_again(make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    old_rule = (  # as the fewest-folders rule stored them
        "UPDATE links SET target_path = 'zzzz/' || substr(target_path, 5)"
        " WHERE target_path IN ('a/b/Note.md', 'a/b/pic.png')"
    )
    await indexed_before(root, 38, old_rule)
    async with started(root) as vg:
        await vg.indexed()
        await _check(vg)
