"""A cursor written by hand (valid base64 JSON of an odd shape) is `invalid cursor`, never
internal_error, for every tool that pages with an offset cursor (`service.tools.models.decode_cursor`).

Found by R8 (s78) tampering with cursors across the paged tools after 0f20f752 (bundle cursors):
`{"o": Infinity}` (JSON as Python reads it) made `int(data["o"])` raise OverflowError, which the
decoder did not catch, so 26 tools (list_tags, search_text, list_tasks, list_findings,
get_backlinks, replace_text's preview, ...) answered internal_error. Nothing is changed either way.
"""

from __future__ import annotations

import base64

import pytest

from tests.conftest import Harness

SHAPES = ['{"o":Infinity}', '{"o":-Infinity}', '{"o":NaN}', '{"o":"x"}', '{"o":-1}', "[]", "null"]
CALLS: dict[str, dict[str, object]] = {
    "list_tags": {},
    "search_text": {"query": "welcome"},
    "list_tasks": {},
    "list_findings": {},
    "get_backlinks": {"path": "Welcome"},
    "property_values": {"key": "status"},
    "get_audit_log": {},
    "replace_text": {"find": "e", "replace": "E"},
}


def hand_written(raw: str) -> str:
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


@pytest.mark.parametrize("tool", list(CALLS))
async def test_a_hand_written_cursor_is_an_invalid_cursor(vg: Harness, tool: str) -> None:
    await vg.indexed()
    before = vg.snapshot()
    for raw in SHAPES:
        error = await vg.err(tool, "validation_error", **CALLS[tool], cursor=hand_written(raw))
        assert error["details"]["field"] == "cursor", (raw, error)
    assert vg.snapshot() == before
