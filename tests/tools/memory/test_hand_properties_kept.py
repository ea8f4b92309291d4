"""Properties a person adds to an entity note in Obsidian survive the agents' writes (M4 s71): every
memory write rendered the whole frontmatter anew, so one add_observations turned
`birthday: 1990-03-04` (Obsidian's date property) into the text "1990-03-04", `phone: +4412345`
into 4412345, `zip: 010` into 10, dropped the person's comment, rewrote their tag list as a flow
list and moved the keys. The block is now written back line for line; only `updated` changes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

FRONT = """---
name: Ann
entityType: person
birthday: 1990-03-04
phone: +4412345
zip: 010
tags:
  - friend
  - work
# met through Caroline
created: 2024-02-01
updated: 2024-02-01
---
"""
BODY = "# Ann\n\n## Observations\n- Likes tea ^a1\n\n## Relations\n"


@pytest.mark.covers("add_observations", "success")
async def test_properties_a_person_added_are_written_back_as_written(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Memory/Ann.md": FRONT + BODY, "Welcome.md": "# Welcome\n"})) as vg:
        await vg.indexed()
        await vg.ok("add_observations", observations=[{"entityName": "Ann", "contents": ["Likes cake"]}])
        await vg.ok("create_relations", relations=[{"from": "Ann", "to": "Welcome", "relationType": "wrote"}])
        text = vg.read("Memory/Ann.md")
        front = text[: text.index("# Ann")]
        lines = FRONT.splitlines()
        assert front.splitlines()[:-2] == lines[:-2] and front.endswith("---\n")  # all but `updated`, as written
        assert front.count("updated:") == 1 and "updated: 2024-02-01" not in front
        assert "- Likes cake" in text and "- wrote [[Welcome]]" in text
        props = (await vg.ok("get_properties", path="Memory/Ann"))["properties"]
        assert props["tags"] == ["friend", "work"] and props["entityType"] == "person"
        opened = await vg.ok("open_nodes", names=["Ann"])
        assert [o["text"] for o in opened["entities"][0]["observations"]] == ["Likes tea", "Likes cake"]


async def test_a_note_without_memory_properties_gets_only_those_it_needs(make_vault: Callable[..., Path]) -> None:
    note = "---\nrating: 5\n---\n# Bob\n\n## Observations\n- Plays chess\n"
    async with started(make_vault({"Memory/Bob.md": note})) as vg:
        await vg.ok("add_observations", observations=[{"entityName": "Bob", "contents": ["Plays go"]}])
        front = vg.read("Memory/Bob.md").split("# Bob")[0].splitlines()
        assert front[:2] == ["---", "rating: 5"] and front[-1] == "---"
        assert [line.split(":")[0] for line in front[2:-1]] == ["name", "updated"]  # no empty aliases or created
        assert (await vg.ok("open_nodes", names=["Bob"]))["entities"][0]["name"] == "Bob"
