"""A link spelled in NFD ('[[Cafe\u0301]]': a macOS client may write a name so) names the note
spelled in NFC ('Café.md'), as a path argument in either form does (`parse_address`). Before,
the link resolver compared the spellings as they were: such a link was broken for the index
(get_backlinks left it out, find_broken_links listed it) while read_canvas resolved a canvas's
NFD file node; a rename left every such link (wikilink, Markdown href raw or percent-encoded,
property link, canvas file node) naming the old name, and a note made after the link never took
it over. X3, session 78."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Harness, indexed_before, started

CAFE = unicodedata.normalize("NFC", "Café")
NFD = unicodedata.normalize("NFD", CAFE)
assert NFD != CAFE
NEW = unicodedata.normalize("NFC", "Thé vert")


def _canvas(file: str) -> str:
    node = {"id": "n", "type": "file", "file": file, "x": 0, "y": 0, "width": 10, "height": 10}
    return json.dumps({"nodes": [node], "edges": []})


HUB = f"1 [[{NFD}]]\n2 [[{NFD}#Menu|the menu]]\n3 [x]({NFD}.md)\n4 [y](Cafe%CC%81.md)\n5 ![[{NFD}]]\n"
VAULT = {
    f"{CAFE}.md": "# Café\n\n## Menu\n\ntea\n",
    "Hub.md": HUB,
    "Props.md": f'---\nup: "[[{NFD}]]"\n---\nbody\n',
    "Board.canvas": _canvas(f"{NFD}.md"),
}
LINKING = ["Board.canvas", "Hub.md", "Props.md"]


async def _linking(vg: Harness, note: str) -> list[str]:
    await vg.settled()
    return sorted({b["path"] for b in (await vg.ok("get_backlinks", path=note))["items"]})


async def _broken(vg: Harness) -> list[str]:
    await vg.settled()
    return [f"{b['path']}:{b['line']}" for b in (await vg.ok("find_broken_links"))["items"]]


async def test_a_link_spelled_in_nfd_names_the_note_and_follows_its_rename(make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    async with started(root) as vg:
        await vg.indexed()
        assert await _linking(vg, CAFE) == LINKING
        assert await _broken(vg) == []
        preview = await vg.ok("rename_note", path=NFD, new_path=NEW, dry_run=True)
        assert sorted(i["path"] for i in preview["items"]) == LINKING, preview
        assert preview["links_rewritten"] == 7, preview
        before = vg.snapshot()
        done = await vg.ok("rename_note", path=CAFE, new_path=NEW)
        assert done["path"] == f"{NEW}.md" and done["links_rewritten"] == 7, done
        assert vg.changed_since(before) == {*LINKING, f"{CAFE}.md", f"{NEW}.md"}
        assert vg.read("Hub.md") == (
            f"1 [[{NEW}]]\n2 [[{NEW}#Menu|the menu]]\n3 [x](Thé%20vert.md)\n4 [y](Th%C3%A9%20vert.md)\n5 ![[{NEW}]]\n"
        )
        assert vg.read("Props.md") == f'---\nup: "[[{NEW}]]"\n---\nbody\n'
        assert vg.read("Board.canvas") == _canvas(f"{NEW}.md").replace("\\u00e9", "é")
        assert await _linking(vg, NEW) == LINKING
        assert await _broken(vg) == []


async def test_a_note_made_after_an_nfd_link_takes_it_over(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Hub.md": HUB})) as vg:
        await vg.indexed()
        assert len(await _broken(vg)) == 5
        await vg.ok("create_note", path=CAFE, content="## Menu\n")
        assert await _linking(vg, CAFE) == ["Hub.md"]
        assert await _broken(vg) == []


async def test_an_index_built_before_resolves_those_links_again(make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    await indexed_before(root, 42, "UPDATE links SET target_path = NULL")  # as the old resolver stored them
    async with started(root) as vg:
        await vg.indexed()
        assert await _linking(vg, CAFE) == LINKING
        assert await _broken(vg) == []


async def test_rewrite_links_of_a_deleted_note_takes_its_nfd_links_too(make_vault: Callable[..., Path]) -> None:
    """With the note gone, rewrite_links finds the notes to look at by the links' names (the index
    holds them unresolved): an NFD name is that name."""
    root = make_vault({**VAULT, "Tea.md": "# Tea\n\n## Menu\n"})
    async with started(root) as vg:
        await vg.indexed()
        await vg.ok("delete_note", path=CAFE)
        await vg.settled()
        done = await vg.confirmed("rewrite_links", old_target=CAFE, new_target="Tea", dry_run=False)
        assert sorted(i["path"] for i in done["items"]) == LINKING, done
        assert vg.read("Hub.md") == "1 [[Tea]]\n2 [[Tea#Menu|the menu]]\n3 [x](Tea.md)\n4 [y](Tea.md)\n5 ![[Tea]]\n"
        assert vg.read("Props.md") == '---\nup: "[[Tea]]"\n---\nbody\n'
        assert vg.read("Board.canvas") == _canvas("Tea.md")
        assert await _broken(vg) == []
