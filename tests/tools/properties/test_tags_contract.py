"""remove_tags' typical failures, through the full chain: a missing note, a stale etag."""

from __future__ import annotations

import pytest

from tests.conftest import Harness


@pytest.mark.covers("remove_tags", "failure")
async def test_remove_tags_on_a_missing_note_or_a_stale_etag_fails_and_changes_nothing(vg: Harness) -> None:
    before = vg.snapshot()
    missing = await vg.err("remove_tags", "note_not_found", path="Nope", tags=["start"])
    assert missing["details"]["path"] == "Nope.md"
    stale = await vg.err("remove_tags", "conflict", path="Welcome", tags=["start"], expected_etag="stale")
    assert stale["details"]["expected_etag"] == "stale" and stale["details"]["current_etag"]
    assert vg.snapshot() == before
    assert "tags: [start]" in vg.read("Welcome.md")
