"""A regular expression nested hundreds of groups deep is a syntax error, not an internal error.
The `regex` engine parses a pattern in Python, one recursion per group, so 400 nested groups
raised RecursionError out of service.budget.compile_regex: search_regex, search_vault's regex
mode, replace_text with regex=true and a tasks_filter `regex matches` line all answered
internal_error (found by A1, session 87, attacking a real server)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

NESTED = "(" * 400 + "alpha" + ")" * 400
VAULT = {"A.md": "# A\n\nalpha beta\n\n- [ ] alpha task\n"}


async def test_a_deeply_nested_pattern_is_a_syntax_error_in_every_tool_that_compiles_one(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault(VAULT)
    async with started(root) as vg:
        await vg.indexed()
        calls = [
            ("search_regex", {"pattern": NESTED}),
            ("search_vault", {"mode": "regex", "query": NESTED}),
            ("replace_text", {"find": NESTED, "replace": "x", "regex": True, "dry_run": True}),
            ("tasks_filter", {"query": f"description regex matches /{NESTED}/"}),
        ]
        for tool, args in calls:
            out = await vg.call(tool, **args)
            assert out.structured is not None, tool
            assert out.structured["error"]["code"] == "query_syntax_error", (tool, out.structured["error"])
        shallow = await vg.ok("search_regex", pattern="(" * 20 + "alpha" + ")" * 20)
        assert [i["path"] for i in shallow["items"]] == ["A.md"]
    assert (root / "A.md").read_text(encoding="utf-8") == VAULT["A.md"]
