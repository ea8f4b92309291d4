"""Every list item Obsidian shows under an entity's `## Observations` / `## Relations` is the
entity's observation or relation, whatever its marker: `-`, `*`, `+`, `1.`, `1)`, a tab or several
spaces after it, one to three spaces before it (CommonMark's list items, as Obsidian renders them).
Before, only `- ` (dash, one space, no indent) was: a person's `-\tLikes tea` or `* Likes tea` was
not listed by open_nodes, add_observations wrote the same fact again, delete_observations answered
not_found and left it. A nested item (indented under another item), a thematic break (`- - -`,
`* * *`) and an item in code stay what Obsidian shows them as: no observation.

A write changes only the lines it must: every other line stays byte for byte, a changed line keeps
its marker, and a new item follows the section's own list (its bullet, the next number, its
indent and spacing), so Obsidian still shows one list. Through the dispatch chain."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

HEAD = "---\nname: Eve\nentityType: person\n---\n# Eve\n\n## Observations\n"
ANN = "---\nname: Ann\nentityType: person\n---\n# Ann\n"
# marker form -> (first line as written, second line as written, how a new third item is written)
FORMS: dict[str, tuple[str, str, str]] = {
    "dash, tab": ("-\tLikes tea", "-\tPlays chess ^m-2", "-\t"),
    "star": ("* Likes tea", "* Plays chess ^m-2", "* "),
    "plus": ("+ Likes tea", "+ Plays chess ^m-2", "+ "),
    "ordered, dot": ("1. Likes tea", "2. Plays chess ^m-2", "3. "),
    "ordered, parenthesis": ("1) Likes tea", "2) Plays chess ^m-2", "3) "),
    "ordered, from 7, two spaces": ("7.  Likes tea", "8.  Plays chess ^m-2", "9.  "),
    "dash, three spaces": ("-   Likes tea", "-   Plays chess ^m-2", "-   "),
    "indented one space": (" - Likes tea", " - Plays chess ^m-2", " - "),
    "indented three, star, tab": ("   *\tLikes tea", "   *\tPlays chess ^m-2", "   *\t"),
    "dash (as the tools write)": ("- Likes tea", "- Plays chess ^m-2", "- "),
}
TAIL = "\n## Relations\n{rel}\n\n## Notes\nmine\n"


def _note(first: str, second: str, marker: str) -> str:
    return HEAD + f"{first}\n{second}\n" + TAIL.format(rel=f"{marker}knows [[Memory/Ann]]")


async def _texts(vg: object, name: str = "Eve") -> list[str]:
    opened = await vg.ok("open_nodes", names=[name])  # type: ignore[attr-defined]
    return [o["text"] for o in opened["entities"][0]["observations"]]


@pytest.mark.parametrize("form", list(FORMS))
async def test_every_list_item_form_is_an_observation_and_written_back_in_its_form(
    make_vault: Callable[..., Path], form: str
) -> None:
    first, second, marker = FORMS[form]
    rel_marker = marker if not marker[0].isdigit() else marker.replace("3", "1", 1)
    note = _note(first, second, rel_marker)
    async with started(make_vault({"Memory/Eve.md": note, "Memory/Ann.md": ANN})) as vg:
        await vg.indexed()
        assert await _texts(vg) == ["Likes tea", "Plays chess"]
        opened = await vg.ok("open_nodes", names=["Eve"])
        assert {"from": "Eve", "to": "Ann", "relationType": "knows"} in opened["relations"], opened
        added = await vg.ok(
            "add_observations", observations=[{"entityName": "Eve", "contents": ["likes tea", "Reads"]}]
        )
        assert added["results"][0]["skipped_duplicates"] == ["likes tea"], added  # the person's line is the fact
        text = vg.read("Memory/Eve.md")
        body = text.split("---\n", 2)[2]
        lines = body.split("\n")
        at = lines.index(second)
        assert lines[at - 1] == first, body  # untouched, byte for byte
        assert lines[at + 1].startswith(f"{marker}Reads ["), body  # the list's own form
        assert body.endswith(TAIL.format(rel=f"{rel_marker}knows [[Memory/Ann]]")), body
        await vg.ok(
            "supersede_observation", entityName="Eve", observation="Likes tea", superseded_by="Reads"
        )  # the older line changes: its marker stays
        lines = vg.read("Memory/Eve.md").split("---\n", 2)[2].split("\n")
        changed = next(line for line in lines if "Likes tea" in line)
        assert changed.startswith(first.removesuffix("Likes tea") + "Likes tea [superseded_by:: ^"), changed
        gone = await vg.ok("delete_observations", deletions=[{"entityName": "Eve", "observations": ["Plays chess"]}])
        assert gone["deleted"] == 1 and gone["not_found"] == [], gone
        assert second not in vg.read("Memory/Eve.md")
        deleted = await vg.ok("delete_relations", relations=[{"from": "Eve", "to": "Ann", "relationType": "knows"}])
        assert deleted["deleted"] == 1, deleted
        assert "knows" not in vg.read("Memory/Eve.md")
        assert await _texts(vg) == ["Likes tea", "Reads"]


NOT_ITEMS = {
    "nested under an item": "- Likes tea\n  - with milk\n    * and sugar\n\t- tabbed in\n",
    "nested under an ordered item": "1. Likes tea\n   - with milk\n",
    "thematic breaks": "- Likes tea\n\n- - -\n* * *\n_ _ _\n",
    "four spaces: code": "Text.\n\n    - not an item\n\n- Likes tea\n",
    "a bare marker": "- Likes tea\n-\n*\n1.\n",
    "no space after the marker": "- Likes tea\n-tea\n*tea\n1.tea\n",
}


@pytest.mark.parametrize("shape", list(NOT_ITEMS))
async def test_what_obsidian_shows_as_no_item_of_its_own_stays_text(
    make_vault: Callable[..., Path], shape: str
) -> None:
    note = HEAD + NOT_ITEMS[shape] + TAIL.format(rel="- knows [[Memory/Ann]]")
    async with started(make_vault({"Memory/Eve.md": note, "Memory/Ann.md": ANN})) as vg:
        await vg.indexed()
        assert await _texts(vg) == ["Likes tea"]
        await vg.ok("add_observations", observations=[{"entityName": "Eve", "contents": ["Reads"]}])
        await vg.ok("delete_observations", deletions=[{"entityName": "Eve", "observations": ["Reads"]}])
        assert vg.read("Memory/Eve.md").split("---\n", 2)[2] == note.split("---\n", 2)[2]  # byte for byte


async def test_a_merge_copies_star_and_numbered_lines_into_the_kept_list(make_vault: Callable[..., Path]) -> None:
    bob = "---\nname: Bob\nentityType: person\n---\n# Bob\n\n## Observations\n* Likes tea ^b-1\n1. Plays chess ^b-2\n"
    eve = HEAD + "1. Reads ^e-1\n" + TAIL.format(rel="- knows [[Memory/Ann]]")
    async with started(make_vault({"Memory/Eve.md": eve, "Memory/Bob.md": bob, "Memory/Ann.md": ANN})) as vg:
        await vg.indexed()
        assert await _texts(vg, "Bob") == ["Likes tea", "Plays chess"]
        merged = await vg.ok("merge_observations", entityName="Eve", mergedName="Bob")
        assert (merged["copied"], merged["block_ids"]) == (2, ["b-1", "b-2"]), merged
        assert "\n1. Reads ^e-1\n2. Likes tea ^b-1\n3. Plays chess ^b-2\n" in vg.read("Memory/Eve.md")
        again = await vg.ok("merge_observations", entityName="Eve", mergedName="Bob")
        assert (again["copied"], again["already_there"]) == (0, 2), again
        assert await _texts(vg) == ["Reads", "Likes tea", "Plays chess"]
