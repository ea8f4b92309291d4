"""Recurrence rules in the words the Tasks plugin's rule reader takes (rrule.js parseText, English
tokens): `first` / `second` / `third` as ordinals, abbreviated day and month names, `in` for `on`,
`or` for `and`, `every year in January`. They were refused (validation_error, nothing written)
where the plugin makes the next occurrence. What rrule.js refuses stays refused (`every other
week`: the plugin does not recur it). Through the dispatcher: completing the task."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

CASES = (
    ("every month on the first Monday", "2026-12-07", "2027-01-04"),
    ("every month on the second last Friday", "2026-12-18", "2027-01-22"),
    ("every month on the first", "2026-12-01", "2027-01-01"),
    ("every Mon, Wed or Fri", "2026-12-02", "2026-12-04"),
    ("every week on tues and thu", "2026-12-03", "2026-12-08"),
    ("every year in January", "2026-01-10", "2027-01-10"),
    ("every sept on the 1st", "2026-09-01", "2027-09-01"),
)


async def test_the_plugins_rule_words_make_the_next_occurrence(make_vault: Callable[..., Path]) -> None:
    note = "".join(f"- [ ] t{i} 🔁 {rule} 📅 {due}\n" for i, (rule, due, _) in enumerate(CASES))
    async with started(make_vault({"R.md": note})) as vg:
        for i, (rule, due, following) in enumerate(CASES):
            line = 2 * i + 1  # each next occurrence is inserted above the done task
            out = await vg.ok("set_task_status", path="R", line=line, status="x",
                              expected_text=f"t{i} 🔁 {rule} 📅 {due}", date="2026-12-02")  # fmt: skip
            assert out["next_occurrence"] == f"t{i} 🔁 {rule} 📅 {following}", rule


async def test_a_rule_the_plugin_does_not_read_is_refused(make_vault: Callable[..., Path]) -> None:
    note = "- [ ] mow 🔁 every other week 📅 2026-12-02\n"
    async with started(make_vault({"R.md": note})) as vg:
        err = await vg.err("set_task_status", "validation_error", path="R", line=1, status="x",
                           expected_text="mow 🔁 every other week 📅 2026-12-02")  # fmt: skip
        assert err["details"]["reason"] == "unsupported_recurrence" and vg.read("R.md") == note
