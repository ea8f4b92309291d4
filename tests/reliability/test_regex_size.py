"""A regular expression whose counted repeats would unroll past the budget is refused before it is
compiled, wherever a caller writes one: the `regex` engine copies the body of `x{n}` n times when
it compiles, beyond the reach of any match timeout (`x{99999999}`, 13 bytes, took 2.8 GB). The
answer is `compute_budget_exceeded` (limit `regex_size`), and counts that fit still match."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started

VAULT = {"Note.md": "---\nstatus: ok\n---\n- [ ] write 2026-11-30 xx\n", "Other.md": "plain\n"}
VIEW = "views:\n  - {name: v, order: [formula.x], filters: 'file.name == \"Note.md\"'}\n"
# 13 bytes that took 2.8 GB; a nested form (a million items from 21 bytes); a branch repeated.
PATTERNS = ["x{99999999}", "(?:(?:x){1000}){1000}", "(?:a|bc){20000}"]


def calls(pattern: str) -> list[tuple[str, dict[str, Any]]]:
    quoted = pattern.replace("\\", "\\\\")
    return [
        ("search_regex", {"pattern": pattern}),
        ("eval_dataview_field", {"path": "Note", "field": f'regextest("{quoted}", "abc")'}),
        ("search_dql", {"query": f'LIST WHERE regexmatch("{quoted}", file.name)'}),
        ("tasks_filter", {"query": f"description regex matches /{pattern}/"}),
        ("query_base", {"yaml": f"formulas:\n  x: '/{pattern}/.matches(\"abc\")'\n" + VIEW}),
    ]


@pytest.mark.parametrize("pattern", PATTERNS)
async def test_a_regex_that_would_unroll_past_the_budget_is_refused_by_every_caller(
    make_vault: Callable[..., Path], pattern: str
) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        for tool, args in calls(pattern):
            error = await vg.err(tool, "compute_budget_exceeded", **args)
            assert error["details"]["limit"] == "regex_size", (tool, error)
            assert error["details"]["size"] > error["details"]["max_regex_units"]
        assert (await vg.ok("search_regex", pattern="pla+in"))["items"]  # the server is still answering


async def test_counted_repeats_within_the_budget_still_match(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        for pattern in (r"\d{4}-\d{2}-\d{2}", "x{2}", r"(?:\w{50} ){0,3}x{1,50000}", "x{1000}|xx"):
            hits = await vg.ok("search_regex", pattern=pattern)
            assert [item["path"] for item in hits["items"]] == ["Note.md"], pattern
        field = await vg.ok("eval_dataview_field", path="Note", field='regextest("x{2}", "axxb")')
        assert field["fields"]['regextest("x{2}", "axxb")']["value"] is True
