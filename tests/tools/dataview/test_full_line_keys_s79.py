"""Session 79 (V3): a whole-line `Key:: value` is a field only when Dataview's full-line key parser
takes its key (inline-field.ts FULL_LINE_KEY_PARSER, parsimmon): leading marks and Markdown are
skipped, then only letters, digits, `_`, white space, `/`, `-` and emoji, then only `_*~` and
backquotes. vaultgate took any text before `::` as a key, so prose made fields Dataview never has
(`The C++ std::vector is fast` was a field `the-c-std`); and `**Status**:: done` is `Status` as
written. Each case below was run through Dataview's parser (parsimmon 1.18.1, emoji-regex 10.3.0)
under node; 19,847 random keys: the same answer for every one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started

NOTE = """e.g.:: an example
Mr. Smith:: a person
The C++ std::vector is fast
**Bold** Key:: half bold
x²:: 4
**Status**:: done
> quoted:: 1
☀ Weather:: sunny
[Mr. Smith:: bracketed]
"""


def cells(out: dict[str, Any]) -> list[Any]:
    return [c["value"] for c in out["rows"][0]["cells"]]


async def test_a_whole_line_key_dataview_refuses_is_no_field(make_vault: Callable[..., Path]) -> None:
    """`e.g.`, `The C++ std`, `**Bold** Key` and `x²` are no keys (were fields eg, the-c-std,
    bold-key, x); `Mr. Smith` only in brackets; `**Status**` is the field Status, `> quoted`
    quoted, `☀ Weather` Weather (the emoji before the first letter skipped)."""
    async with started(make_vault({"K.md": NOTE})) as vg:
        await vg.indexed()
        query = (
            'TABLE WITHOUT ID eg, row["the-c-std"], row["bold-key"], x, row["mr-smith"], status, row["Status"], '
            'quoted, weather FROM "K"'
        )
        out = await vg.ok("search_dql", query=query)
        assert cells(out) == [None, None, None, None, "bracketed", "done", "done", 1, "sunny"]
        rows = await vg.ok("search_dql", query='LIST FROM "K" WHERE eg OR row["the-c-std"]')
        assert rows["rows"] == []
