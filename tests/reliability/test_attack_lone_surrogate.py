"""An argument holding a lone surrogate is a validation_error naming it, never internal_error (U13, s79).

A Python string may hold half of a UTF-16 surrogate pair ("\\ud800"); JSON parsers read one from
the escape `"\\ud800"` (a JavaScript client writes one when it cuts a string between the halves
of an emoji). The fronts refuse such a message in their framing step (a parse error); an
in-process caller of the dispatcher does not pass through it, and there the call hash
(`service.dispatch.args_hash`) encoded the arguments to UTF-8 and raised UnicodeEncodeError:
internal_error. Now the call is refused with the argument's name (at any depth, a key too),
before any tool runs: nothing written.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started

CASES: list[tuple[str, dict[str, Any], str]] = [
    ("read_note", {"path": "A\ud800"}, "path"),
    ("create_note", {"path": "B.md", "content": "text \udc00 more"}, "content"),
    ("write_note", {"path": "A.md", "content": "x\ud83d"}, "content"),
    ("append_note", {"path": "A.md", "content": "\udfff"}, "content"),
    ("replace_text", {"path": "A.md", "find": "hello", "replace": "\ud800"}, "replace"),
    ("set_properties", {"path": "A.md", "properties": {"k": ["ok", "\ud800"]}}, "properties.k[1]"),
    ("set_properties", {"path": "A.md", "properties": {"k\udc80": 1}}, "properties"),
    (
        "bulk_create_notes",
        {"notes": [{"path": "C.md", "content": "c"}, {"path": "D\ud800.md", "content": "d"}]},
        "notes[1].path",
    ),
    ("create_note", {"path": "E.md", "content": "e", "\ud800": 1}, "arguments"),
    (
        "call_capability",
        {"name": "create_note", "arguments": {"path": "F.md", "content": "\ud800"}},
        "arguments.content",
    ),
]


@pytest.mark.covers("create_note", "failure")
@pytest.mark.covers("replace_text", "failure")
async def test_a_lone_surrogate_is_a_validation_error_and_nothing_changes(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"A.md": "---\nk: 1\n---\n# A\nhello\n"})
    async with started(root) as vg:
        before = vg.snapshot()
        for tool, args, field in CASES:
            err = await vg.err(tool, "validation_error", **args)
            assert err["details"] == {"field": field, "reason": "lone_surrogate"}, (tool, err)
            assert "lone surrogate" in err["message"], err
        assert vg.changed_since(before) == set()
        # the same calls with whole characters go through (the check refuses the half, not the text)
        await vg.ok("create_note", path="B.md", content="text \U0001f600 more")
        assert vg.read("B.md").startswith("text \U0001f600 more")
