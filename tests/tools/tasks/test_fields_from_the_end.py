"""Task fields are read as the Tasks plugin reads them: from the end of the line, stopping at the
first text that is no field (its docs, Getting Started "Order of metadata/emojis"; issue #1505;
src/TaskSerializer/DefaultTaskSerializer.ts deserialize). Found in session 73 (T2) and left open:
vaultgate read `📅`, `[due:: …]` and the rest anywhere in the line, so `Call Bob 📅 2026-12-01 about
it` was due for list_tasks and tasks_filter while the plugin shows it undated with the 📅 in its
description; `[priority:: High]` (the plugin reads lower case only) was high; completing a task whose
`🔁` rule stood before other text made its next occurrence. Tags between the fields are stepped over,
as in the plugin. An index built before migration 0036 reads such notes again.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import indexed_before, started

TODAY = "2026-12-02"
NOTE = """# Calls

- [ ] Call Bob 📅 2026-12-01 about it
- [ ] Call Ann 📅 2026-12-01 #phone ⏫ ^ann
- [ ] Call Cy [due:: 2026-12-01] [priority:: High]
- [ ] Call Di [due:: 2026-12-01], [priority:: high]
- [ ] Call Ed `📅 2026-12-01`
- [ ] Call Flo 📅 2026-12-01 %% by phone %%
- [ ] Call Gus 📅 2026-12-01 then 📅 2026-12-03
"""
# What the plugin reads: (description, due, priority)
EXPECTED = [
    ("Call Ann #phone", "2026-12-01", "high"),
    ("Call Bob 📅 2026-12-01 about it", None, None),
    ("Call Cy [due:: 2026-12-01] [priority:: High]", None, None),
    ("Call Di", "2026-12-01", "high"),
    ("Call Ed `📅 2026-12-01`", None, None),
    ("Call Flo 📅 2026-12-01 %% by phone %%", None, None),
    ("Call Gus 📅 2026-12-01 then", "2026-12-03", None),
]


async def test_list_tasks_and_tasks_filter_read_fields_from_the_end(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Calls.md": NOTE})) as vg:
        await vg.indexed()
        out = await vg.ok("list_tasks", limit=50)
        assert sorted((i["description"], i["due"], i["priority"]) for i in out["items"]) == EXPECTED
        due = await vg.ok("list_tasks", has_due=True)
        assert sorted(i["description"] for i in due["items"]) == [
            "Call Ann #phone",
            "Call Di",
            "Call Gus 📅 2026-12-01 then",
        ]
        f = await vg.ok("tasks_filter", query="has due date\nsort by description", today=TODAY)
        assert [i["description"] for i in f["items"]] == ["Call Ann #phone", "Call Di", "Call Gus 📅 2026-12-01 then"]
        f = await vg.ok("tasks_filter", query="no due date\ndescription includes 📅", today=TODAY)
        assert sorted(i["description"] for i in f["items"]) == [
            "Call Bob 📅 2026-12-01 about it", "Call Ed `📅 2026-12-01`", "Call Flo 📅 2026-12-01 %% by phone %%",
        ]  # fmt: skip
        f = await vg.ok("tasks_filter", query="due before 2026-12-02", today=TODAY)
        assert sorted(i["description"] for i in f["items"]) == ["Call Ann #phone", "Call Di"]


async def test_completing_a_task_reads_its_rule_from_the_end(make_vault: Callable[..., Path]) -> None:
    """A `🔁` rule followed by text is description: completing the task makes no next occurrence;
    one followed by a tag is read (the plugin steps over trailing tags)."""
    note = "- [ ] water 🔁 every week (then rest) 📅 2026-12-01\n- [ ] feed 🔁 every week 📅 2026-12-01 #cat\n"
    async with started(make_vault({"Home.md": note})) as vg:
        await vg.indexed()
        for line in (1, 2):
            text = note.splitlines()[line - 1][6:]
            await vg.ok("set_task_status", path="Home", line=line, status="x", expected_text=text, date=TODAY)
        lines = (vg.root / "Home.md").read_text().splitlines()
        assert lines[0] == "- [x] water 🔁 every week (then rest) 📅 2026-12-01 ✅ 2026-12-02"
        assert lines[1:] == [
            "- [ ] feed 🔁 every week 📅 2026-12-08 #cat",
            "- [x] feed 🔁 every week 📅 2026-12-01 #cat ✅ 2026-12-02",
        ]


async def test_an_index_built_before_reads_task_fields_again(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Calls.md": NOTE})
    await indexed_before(  # the rows as the reading before 0036 wrote them: fields read anywhere
        root, 36, "UPDATE tasks SET due = '2026-12-01', priority = 'high' WHERE text LIKE 'Call Bob%'"
    )
    async with started(root) as vg:
        await vg.indexed()
        out = await vg.ok("list_tasks", has_due=True)
        assert sorted(i["text"][:8] for i in out["items"]) == ["Call Ann", "Call Di ", "Call Gus"]
