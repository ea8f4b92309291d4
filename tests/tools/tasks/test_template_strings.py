"""tasks_filter through the dispatch chain reads a template string's `${…}` as JavaScript does: a `}`
or a backtick inside a quoted string, inside a nested template string or inside balanced braces
does not end it (`${'}'}` was refused as a syntax error; the Tasks plugin, running JavaScript,
accepts it), and one left open or nested past [limits] max_depth is a query_syntax_error at its
column."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Harness, started

FILES = {"T.md": "- [ ] one #a 📅 2023-06-11\n"}


async def _group(vg: Harness, expression: str) -> str:
    out = await vg.ok("tasks_filter", query=f"group by function {expression}", today="2023-06-11")
    [group] = out["groups"]
    return str(group["names"][0])


@pytest.mark.covers("tasks_filter", "success")
async def test_braces_and_quotes_inside_a_substitution_do_not_end_it(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        assert await _group(vg, "`${'}'}`") == "}"
        assert await _group(vg, '`[${"}{"}]`') == "[}{]"
        assert await _group(vg, "`${'`'}`") == "`"
        assert await _group(vg, "`a${`b${'}'}c`}d`") == "ab}cd"
        assert await _group(vg, "`${task.tags.map(t => `<${t}>`).join('}')}`") == "<#a>"
        assert await _group(vg, "`${'a}b'.split('}').join('{')}!`") == "a{b!"
        assert await _group(vg, r"`\${x} ${'\'}'}`") == "${x} '}"
        assert await _group(vg, "const f = (x) => `{${x}}`; return f('}') + `${'{'}`") == "{}}{"


@pytest.mark.covers("tasks_filter", "failure")
async def test_an_open_or_too_deep_template_string_is_a_query_error(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES), limits={"max_depth": 8}) as vg:
        await vg.indexed()
        for text, column in (
            ("`${'}'`", 19),  # the substitution's quote closes, its brace never does
            ("`${'}`", 19),  # the quote never closes
            ("'a' + `b", 25),
        ):
            err = await vg.err("tasks_filter", "query_syntax_error", query=f"group by function {text}")
            assert "not closed" in err["message"], (text, err)
            assert err["details"]["column"] == column, (text, err["details"])
        deep = "`${" * 20 + "1" + "}`" * 20
        err = await vg.err("tasks_filter", "query_syntax_error", query=f"group by function {deep}")
        assert "nested deeper than 8" in err["message"]
        deeper = "`${" * 5000 + "1" + "}`" * 5000  # 20,000 characters, far past the recursion limit
        err = await vg.err("tasks_filter", "query_syntax_error", query=f"filter by function {deeper}"[:20_000])
        assert "nested deeper than 8" in err["message"]
