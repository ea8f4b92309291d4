"""A relation type is taken without the spaces around it, and a new item never continues a list
in a form that makes it code (A4 s95), through the dispatch chain. create_relations wrote
`relationType: "  knows"` as `-   knows [[Memory/Bob]]`, which reads back as `knows`: the call
reported "  knows" created, the same call again added a second line (read back the same), and
delete_relations with the same arguments found nothing to delete. Worse, each new item continued
the list with the last item's marker and spacing, `-` and five spaces, which CommonMark and
Obsidian read as an indented code block inside the item: every relation added after it by any
agent showed as code, its link no link in Obsidian's graph and backlinks. Now the type is taken
without the spaces before it (create_relations, a plan's step, delete_relations), and a new item
after one whose text starts five or more columns past its marker gets one space."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

HEAD = "---\nname: Ann\nentityType: person\n---\n# Ann\n\n## Observations\n- Lives in Oslo ^m-a\n\n## Relations\n"
BOB = "---\nname: Bob\nentityType: person\n---\n# Bob\n\n## Observations\n- Plays chess ^m-b\n"


async def test_a_relation_type_with_spaces_before_it_is_made_once_and_deleted_by_the_same_arguments(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault({"Memory/Ann.md": HEAD, "Memory/Bob.md": BOB})) as vg:
        relation = {"from": "Ann", "to": "Bob", "relationType": "  knows"}
        made = await vg.ok("create_relations", relations=[relation])
        assert made["created"] == [{"from": "Ann", "to": "Bob", "relationType": "knows"}], made
        again = await vg.ok("create_relations", relations=[relation])
        assert (again["created"], len(again["skipped_duplicates"])) == ([], 1), again
        assert vg.read("Memory/Ann.md").endswith("## Relations\n- knows [[Memory/Bob]]\n")
        gone = await vg.ok("delete_relations", relations=[relation])
        assert gone["deleted"] == 1, gone


async def test_a_new_item_does_not_continue_a_list_whose_marker_makes_it_code(make_vault: Callable[..., Path]) -> None:
    ann = HEAD + "-     knows [[Memory/Bob]]\n"
    async with started(make_vault({"Memory/Ann.md": ann, "Memory/Bob.md": BOB})) as vg:
        await vg.ok("create_relations", relations=[{"from": "Ann", "to": "Bob", "relationType": "likes"}])
        await vg.ok("add_observations", observations=[{"entityName": "Ann", "contents": ["Owns a boat"]}])
        text = vg.read("Memory/Ann.md")
        assert text.endswith("-     knows [[Memory/Bob]]\n- likes [[Memory/Bob]]\n"), text
        opened = await vg.ok("open_nodes", names=["Ann"])
        assert [r["relationType"] for r in opened["relations"]] == ["knows", "likes"]
