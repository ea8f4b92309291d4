"""A name no note's file name spells is looked up in the memory folder without asking the path ACL
about every note there (A4 s95), through the dispatch chain. The lookup (a person may have renamed
the entity in its frontmatter) read each note's name, once per change, but first asked whether
the caller may read each note — a path resolution with its own file opens, for every note of the
folder, at every miss, on the event loop: with 5,000 entity notes, open_nodes of 100 names that
are no entity took 25 s and create_relations to 1,000 ordinary notes 181 s. Now only a note whose
name (or alias) is the one looked for is checked: a note the caller may not read is still no
entity of its name (tests/tools/memory/test_hidden_entity_names.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from service.memory.store import EntityStore
from tests.conftest import started

ACL = {"prefix_rules": [{"path": "Memory/Boss.md", "read": "deny", "write": "deny"}]}


def entity(name: str) -> str:
    return f"---\nname: {name}\nentityType: person\n---\n# {name}\n\n## Observations\n- Is here\n"


async def test_a_miss_asks_the_acl_about_no_note_but_the_ones_it_names(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {f"Memory/E{i}.md": entity(f"E{i}") for i in range(300)}
    files["Memory/Boss.md"] = entity("Chief")  # renamed by hand, hidden from this caller
    files["Memory/Renamed.md"] = entity("Ann Lee")  # renamed by hand, readable
    async with started(make_vault(files), acl=ACL) as vg:
        asked: list[str] = []
        real = EntityStore._not_an_entity

        def counting(self: EntityStore, rel: str) -> bool:
            asked.append(rel)
            return real(self, rel)

        monkeypatch.setattr(EntityStore, "_not_an_entity", counting)
        opened = await vg.ok("open_nodes", names=["Nobody", "Chief", "Ann Lee"])
        assert opened["missing"] == ["Nobody", "Chief"], opened
        assert [e["path"] for e in opened["entities"]] == ["Memory/Renamed.md"]
        assert sorted(set(asked)) == ["Memory/Boss.md", "Memory/Renamed.md"], len(asked)
