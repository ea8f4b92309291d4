"""A memory heading or item inside an Obsidian comment (`%%` … `%%`, `<!--` … `-->`) is comment
text, as a line of a code block is code (R6 s76's code-fence case, widened): a person who
comments out a fact or a relation hides it in Obsidian, so open_nodes lists none of it, a new
relation never goes inside the comment (where Obsidian shows nothing), and delete_relations leaves
the commented line alone. Before: the commented lines were the entity's items, and a
`## Relations` inside a comment was the section new relations went under. Through the dispatch chain."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

EVE = (
    "---\nname: Eve\nentityType: person\n---\n# Eve\n\n## Observations\n- Likes tea ^m-1\n"
    "%%\n- Was at Acme\n%%\n<!--\n- A hidden fact\n-->\n\n"
    "%%\n## Relations\n- knows [[Memory/Old]]\n%%\n"
)


async def test_commented_memory_lines_are_comments(make_vault: Callable[..., Path]) -> None:
    files = {"Memory/Eve.md": EVE, "Memory/Ann.md": "---\nname: Ann\n---\n# Ann\n", "Memory/Old.md": "# Old\n"}
    async with started(make_vault(files)) as vg:
        opened = await vg.ok("open_nodes", names=["Eve"])
        assert [o["text"] for o in opened["entities"][0]["observations"]] == ["Likes tea"], opened
        assert opened["relations"] == [], opened
        gone = await vg.ok("delete_relations", relations=[{"from": "Eve", "to": "Old", "relationType": "knows"}])
        assert gone["deleted"] == 0, gone
        await vg.ok("create_relations", relations=[{"from": "Eve", "to": "Ann", "relationType": "knows"}])
        text = vg.read("Memory/Eve.md")
        body = text.split("---\n", 2)[2]
        assert body.startswith(EVE.split("---\n", 2)[2]), text  # every commented line kept, in place
        assert body.endswith("%%\n\n## Relations\n- knows [[Memory/Ann]]\n"), text  # a real section, after it
        again = await vg.ok("open_nodes", names=["Eve"])
        assert again["relations"] == [{"from": "Eve", "to": "Ann", "relationType": "knows"}], again
