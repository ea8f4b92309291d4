"""Reading a task's fields from the end of its line (the Tasks plugin's reading, 7a827e3f) takes
time linear in the line, whatever the line holds. The plugin's own patterns backtrack: `⛔` with
ids spaced before their commas (`⛔ a  , a  , … ?`) took exponential time to reject (a 40-id line
never finished), and a long run of '(' , of spaces after `🔁` or before a non-block-id end was
quadratic: one such line in a vault stalled the index and list_tasks. Found reviewing 7a827e3f
(session 74, R4). The fields these lines do hold are still read as the plugin reads them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

IDS = "⛔ a" + "  , a" * 40 + " ?"
NOTE = "\n".join(
    [
        "# Hostile",
        "",
        f"- [ ] Ids {IDS}",
        "- [ ] Parens " + "(" * 60_000 + " x:: y 📅 2026-12-01",
        "- [ ] Rule 🔁" + " " * 60_000 + "?",
        "- [ ] Blanks 📅 2026-12-01" + " " * 60_000 + "^ not-an-id",
        "- [ ] Kept ⛔ a1 , a2 (repeat:: every day ) [due:: 2026-12-03] ^blk",
        "",
    ]
)


async def test_list_tasks_reads_hostile_task_lines_in_linear_time(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Hostile.md": NOTE})) as vg:
        await vg.indexed()
        out = await vg.ok("list_tasks", limit=50)
        items = {i["description"].split()[0]: i for i in out["items"]}
        assert sorted(items) == ["Blanks", "Ids", "Kept", "Parens", "Rule"]
        assert items["Ids"]["description"].split() == ["Ids", *IDS.split()]  # no field: the line ends in '?'
        assert items["Parens"]["due"] == "2026-12-01"
        assert items["Rule"]["recurrence"] is None and items["Blanks"]["due"] is None
        kept = items["Kept"]
        assert (kept["due"], kept["recurrence"], kept["depends_on"]) == ("2026-12-03", "every day", ["a1", "a2"])
        assert kept["description"] == "Kept"
