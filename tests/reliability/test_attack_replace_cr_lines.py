"""replace_text's preview of a note whose lines end in a CR alone lists its lines (U13, session 79).

Obsidian (CodeMirror) reads a lone CR (classic Mac OS) as a line end, and replace_text runs its
pattern on those lines (`service.markdown.line_ends`), but its preview split the texts at LF
only: a CR-only note's changes came as one 'line' holding every line and its CRs
(`'x two\\ry two'`), counted as one changed line for two. Now the preview reads the lines as the
note shows them, as the runs of the replacement count them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started


@pytest.mark.covers("replace_text", "success")
async def test_a_cr_only_notes_preview_lists_its_lines(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Mac.md": "x two\ry two\rz\r", "Mixed.md": "a two\r\nb\rc two\n"})
    async with started(root) as vg:
        out = await vg.ok("replace_text", path="Mac", find="two$", replace="2", regex=True)
        assert (out["lines_changed"], out["replacements"]) == (2, 2)
        assert out["items"][0]["changes"] == [
            {"line": 1, "before": "x two", "after": "x 2"},
            {"line": 2, "before": "y two", "after": "y 2"},
        ]
        mixed = await vg.ok("replace_text", path="Mixed", find="two", replace="2")
        assert mixed["items"][0]["changes"] == [
            {"line": 1, "before": "a two", "after": "a 2"},
            {"line": 3, "before": "c two", "after": "c 2"},
        ]
        await vg.confirmed("replace_text", path="Mac", find="two$", replace="2", regex=True, dry_run=False)
    assert (root / "Mac.md").read_bytes() == b"x 2\ry 2\rz\r"
