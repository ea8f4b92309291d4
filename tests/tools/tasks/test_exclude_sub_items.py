"""tasks_filter's `exclude sub-items`, the Tasks plugin's rule: a task is a sub-item when text stands
before its list marker — indentation, or in a blockquote or callout more than one space (or a tab)
after the last `>`; `> - [ ]` and `> > - [ ]` are top level. The index records each task's
indentation (migration 0028 reads the notes indexed before again). Before, the line was refused as
an instruction this server does not evaluate (query_syntax_error)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import Harness, indexed_before, started

PLAN = (
    "# Plan\n\n"
    "- [ ] top\n"
    "  - [ ] under a task\n"
    "\t- [x] tab indented\n"
    "- a plain item\n"
    "    - [ ] under an item\n"
    "1. [ ] numbered\n"
    "   1. [ ] numbered under\n\n"
    "> - [ ] quoted\n"
    ">   - [ ] quoted under\n"
    ">  - [ ] two spaces after the mark\n"
    ">\t- [ ] tab after the mark\n\n"
    "> > - [ ] nested quote\n\n"
    "> [!todo] Callout\n"
    "> - [ ] in callout\n"
    ">     - [ ] in callout under\n"
)
TOP = {"top", "numbered", "quoted", "nested quote", "in callout", "not indented"}
FILES = {"Plan.md": PLAN, "Other.md": "- [ ] not indented\n  - [ ] indented elsewhere\n"}


async def _found(vg: Harness, query: str) -> set[str]:
    out = await vg.ok("tasks_filter", query=query, limit=100)
    return {i["description"] for i in out["items"]}


async def test_exclude_sub_items_keeps_the_tasks_the_plugin_keeps(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        everything = await _found(vg, "")
        assert len(everything) == 15
        # answered by the index alone (no task columns built yet), then from the columns
        assert await _found(vg, "exclude sub-items") == TOP
        assert await _found(vg, "group by root") == everything  # builds the columns
        assert await _found(vg, "exclude sub-items") == TOP
        assert await _found(vg, "Exclude  Sub-Items\nnot done") == TOP
        assert await _found(vg, "NOT (exclude sub-items)") == everything - TOP
        assert await _found(vg, "(exclude sub-items) OR (done)") == TOP | {"tab indented"}
        out = await vg.ok("tasks_filter", query="exclude sub-items\npath includes Other\nexplain")
        assert [i["description"] for i in out["items"]] == ["not indented"]
        assert "exclude sub-items" in out["explain"]


async def test_an_index_built_before_reads_the_indentation_of_its_tasks(make_vault: Callable[..., Path]) -> None:
    root = make_vault(FILES)  # the index as the reading before 0028 left it: no indentation kept
    await indexed_before(root, 28, "ALTER TABLE tasks DROP COLUMN indent")
    async with started(root) as vg:
        await vg.indexed()
        assert await _found(vg, "exclude sub-items") == TOP
