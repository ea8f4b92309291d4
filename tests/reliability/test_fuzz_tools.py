"""Every tool fuzzed from its own input schema, through the full dispatch chain.

For each tool, hypothesis-jsonschema draws arguments that match the `inputSchema` clients see
(a fixed, derandomised example budget, so CI runs the same calls every time) on a small vault
with notes, links, tags, properties and a canvas. Each answer must be a success or a structured
error other than `internal_error`, valid against the tool's `outputSchema`; nothing outside the
vault may change. Calls that draw well-formed but meaningless arguments (unknown paths, odd
queries) are the point: they exercise the failure paths a careless agent reaches.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from service.tools.registry import build_registry
from tests.conftest import Harness, snapshot, started

EXAMPLES = 20
REGISTRY = build_registry()
TOOLS = sorted(spec.name for spec in REGISTRY)
FILES = {
    "Welcome.md": "---\ntags: [start]\nstatus: active\n---\n# Welcome\n\nSee [[Projects/Plan]] and #idea.\n",
    "Projects/Plan.md": "---\npriority: 2\n---\n# Plan\n\n## Steps\n- [ ] write\n- [x] read\n\nBack to [[Welcome]].\n",
    "Daily/2026-11-24.md": "# Tuesday\n\nNotes of the day. [[Missing note]]\n",
    "Board.canvas": '{"nodes":[{"id":"a","type":"text","text":"hello","x":0,"y":0,"width":10,"height":10}],"edges":[]}',
    "img/pixel.png": "not really a png",
}
# Arguments that would only make the run slow without reaching new code: bounded here.
CAPS: dict[str, Any] = {"limit": 50, "max_results": 20}
# Random strings rarely name a note: half the time a path-like argument names one that exists
# (or a folder, a wikilink, a new path), and the vault argument is usually left out, so the
# fuzzing reaches the tools' own logic rather than stopping at `note_not_found`.
KNOWN_PATHS = [
    "Welcome",
    "Projects/Plan.md",
    "Daily/2026-11-24",
    "[[Welcome]]",
    "Projects",
    "New/Idea.md",
    "Board.canvas",
]
PATH_KEYS = {"path", "new_path", "folder", "old_target", "new_target", "old", "new", "prefix"}
KNOWN_TAGS = ["idea", "#start", "project/alpha", "Daily"]
# Random plans never pass a plan's own checks (known tools, step ids, references): half the time
# a plan argument is one of these.
KNOWN_PLANS: list[dict[str, Any]] = [
    {"goal": "tag", "steps": [{"id": "t", "tool": "add_tags", "args": {"path": "Welcome", "tags": ["idea"]}}]},
    {
        "goal": "find and append",
        "steps": [
            {"id": "find", "tool": "search_text", "args": {"query": "plan"}},
            {
                "id": "add",
                "tool": "append_note",
                "foreach": "$steps.find.items[*].path",
                "args": {"path": "$item", "content": "seen"},
                "dependsOn": ["find"],
            },
        ],
    },
]


def _outside(root: Path) -> dict[str, bytes]:
    """Everything next to the vault (the test's temp folder), not the vault itself."""
    return {k: v for k, v in snapshot(root.parent).items() if not k.startswith(f"{root.name}/")}


def _capped(args: dict[str, Any]) -> dict[str, Any]:
    capped = {
        k: (min(v, CAPS[k]) if k in CAPS and isinstance(v, int) and not isinstance(v, bool) else v)
        for k, v in args.items()
    }
    # set_task_status takes one character or one of four words: random text of up to 40
    # characters is almost never one, so every other such text is a word it takes (here, not in
    # `call`: hypothesis seeds its derandomised examples from that function's source).
    status = capped.get("status")
    if isinstance(status, str) and len(status) > 1 and len(status) % 2 == 0:
        capped["status"] = "done"
    return capped


def _check(
    tool: str, schema: dict[str, Any], args: dict[str, Any], structured: dict[str, Any] | None, is_error: bool
) -> str:
    """The outcome: `ok` or the error code (a result may have a field named `error` of its own)."""
    assert structured is not None, f"{tool}{args}: no structured content"
    error = structured["error"] if is_error else None
    assert error is None or error.get("code") != "internal_error", f"{tool}{args}: {error}"
    jsonschema.validate(structured, schema)
    return "ok" if error is None else str(error["code"])


@pytest.mark.parametrize("tool", TOOLS)
def test_every_tool_answers_fuzzed_arguments_with_a_result_or_a_structured_error(
    tool: str, make_vault: Callable[..., Path]
) -> None:
    spec = REGISTRY.get(tool)
    assert spec is not None
    root = make_vault(FILES)
    loop = asyncio.new_event_loop()
    context = started(root)
    harness: Harness = loop.run_until_complete(context.__aenter__())
    try:
        loop.run_until_complete(harness.indexed())
        before = _outside(root)
        output_schema = spec.output_schema()
        outcomes: list[str] = []

        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(args=from_schema(spec.input_schema()), data=st.data())
        def call(args: dict[str, Any], data: st.DataObject) -> None:
            args = _capped(args)
            if "vault" in args and data.draw(st.integers(0, 3)):
                del args["vault"]
            for key, value in list(args.items()):
                if key in PATH_KEYS and isinstance(value, str) and data.draw(st.booleans()):
                    args[key] = data.draw(st.sampled_from(KNOWN_PATHS))
                elif key == "paths" and isinstance(value, list) and data.draw(st.booleans()):
                    args[key] = data.draw(st.lists(st.sampled_from(KNOWN_PATHS), min_size=1, max_size=3))
                elif key == "plan" and data.draw(st.booleans()):
                    args[key] = data.draw(st.sampled_from(KNOWN_PLANS))
                elif key == "tags" and isinstance(value, list) and value and data.draw(st.booleans()):
                    args[key] = data.draw(st.lists(st.sampled_from(KNOWN_TAGS), min_size=1, max_size=3))
            result = loop.run_until_complete(harness.call(tool, **args))
            outcomes.append(_check(tool, output_schema, args, result.structured, result.is_error))

        call()
        assert _outside(root) == before
        # schema-valid arguments get past validation: the fuzzing reaches the tool itself
        assert [o for o in outcomes if o != "validation_error"], (tool, outcomes)
        print(tool, sorted(set(outcomes)))
    finally:
        loop.run_until_complete(context.__aexit__(None, None, None))
        loop.close()
