"""Bases' `.replace()` and Dataview's `regexreplace` expand a replacement as JavaScript's
String.prototype.replace does (service/js_replace.py, one expansion for both): `$&`, `$$`,
`` $` ``, `$'`, `$1`..`$99`, `$<name>`, and any other `$` as written. Before, Bases expanded
`$$`, `$&` and groups only: `$0` gave the whole match, `$10` of a one-group pattern stayed
`$10` (JavaScript: group 1 then '0'), `` $` ``, `$'` and `$<x>` stayed as written. The expected
strings are node's (v20), through the dispatch chain."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

# (text, pattern, flags, replacement, what JavaScript's "text".replace(/pattern/flags, replacement) gives)
CASES = [
    ("ab-cd", r"(\w)(\w)-", "", "[$2$1]", "[ba]cd"),
    ("ab-cd", r"(\w)(\w)-", "", "[$`|$']", "[|cd]cd"),
    ("ab-cd", r"(\w)-", "", "[$10|$0|$9]", "a[b0|$0|$9]cd"),
    ("ab-cd", r"(?<x>\w)-", "", "[$<x>|$<y>]", "a[b|]cd"),
    ("ab-cd", r"(\w)-", "", "[$<x>]", "a[$<x>]cd"),
    ("ab-cd", r"b", "g", "[$&$$]", "a[b$]-cd"),
]


def _yaml_string(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


@pytest.mark.parametrize(("text", "pattern", "flags", "replacement", "expected"), CASES)
async def test_bases_and_dataview_expand_a_replacement_as_javascript(
    make_vault: Callable[..., Path], text: str, pattern: str, flags: str, replacement: str, expected: str
) -> None:
    async with started(make_vault({"Note.md": "plain\n"})) as vg:
        await vg.indexed()
        formula = f'"{text}".replace(/{pattern}/{flags}, "{replacement}")'
        base = "formulas:\n  x: " + _yaml_string(formula) + "\nviews:\n  - {name: v, order: [formula.x]}\n"
        out = await vg.ok("query_base", yaml=base)
        assert [row["values"]["formula.x"]["value"] for row in out["rows"]] == [expected], out
        if flags == "g":  # regexreplace replaces every match: the same as /g
            field = f'regexreplace("{text}", "{pattern}", "{replacement}")'.replace("\\", "\\\\")
            dv = await vg.ok("eval_dataview_field", path="Note", field=field)
            assert [f["value"] for f in dv["fields"].values()] == [expected], dv
