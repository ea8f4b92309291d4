"""A `foreach` that names no list says which forms name one. An agent wrote `"foreach": "$find.items"`
(the step is `find`; the reference form is `$steps.find.items[*].path`) and validate_plan answered
only 'foreach must resolve to a list': the text stays a string, and nothing in the answer named the
`$steps.` form, nor what `$steps.find` (the whole result object) holds."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started

FILES = {"Cross-Origin-Embedder-Policy.md": "---\naliases: [COEP]\n---\nA header.\n", "Other.md": "# Other\n"}
FIND = {
    "id": "find",
    "tool": "search_properties",
    "args": {"filters": [{"key": "aliases", "op": "contains", "value": "COEP"}]},
}


def _plan(foreach: str, first: dict[str, Any] = FIND) -> dict[str, Any]:
    tag = {"id": "tag", "tool": "add_tags", "foreach": foreach, "args": {"path": "$item", "tags": ["seen"]}}
    return {"goal": "tag what the first step gives", "steps": [first, tag]}


async def test_a_foreach_naming_no_list_says_how_to_name_one(make_vault: Callable[..., Path]) -> None:
    root = make_vault(FILES)
    async with started(root) as vg:
        await vg.indexed()
        text = (await vg.ok("validate_plan", plan=_plan("$find.items")))["problems"]
        assert [(p["step"], p["code"]) for p in text] == [("tag", "bad_reference")]
        assert "the text '$find.items'" in text[0]["message"]
        assert "'$steps.find.items[*].path'" in text[0]["message"], text
        whole = (await vg.ok("validate_plan", plan=_plan("$steps.find")))["problems"]
        assert "an object with the fields " in whole[0]["message"] and "items" in whole[0]["message"], whole
        fixed = await vg.ok("validate_plan", plan=_plan("$steps.find.items[*].path"))
        assert fixed["valid"] and fixed["effects"]["files_modified"] == ["Cross-Origin-Embedder-Policy.md"]
        # a step whose result is known only when the plan runs: the run's step says the same
        make = {"id": "find", "tool": "create_note", "args": {"path": "New.md", "content": "x"}}
        run = await vg.ok("execute_plan", plan=_plan("$steps.find", make))
        step = next(s for s in run["steps"] if s["id"] == "tag")
        assert step["status"] == "failed" and step["errors"][0]["code"] == "bad_reference", step
        assert "an object with the fields " in step["errors"][0]["message"], step
        assert "'$steps.<id>.<field>'" in step["errors"][0]["message"], step
    assert "seen" not in (root / "Cross-Origin-Embedder-Policy.md").read_text(encoding="utf-8")
