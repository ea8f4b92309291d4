"""search_text reads a page's notes once for their flags: the items' `sensitive` flags and the
redacted snippets come from one lookup of the secret verdicts, and the topic half of the flag
takes the etags that lookup read (s62 F4; before, the snippets were scrubbed with a second lookup
of the same verdicts, and the topics read the page's etags again: two more statements a search)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.tools import sensitive
from tests.conftest import started

KEY = "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"
NOTES = {
    "Plain.md": "# Plain\n\nThe rocket engine test on the stand.\n",
    "Keys.md": f"# Keys\n\nThe rocket console key is {KEY} today.\n",
    "Money.md": "# Money\n\nThe rocket parts we paid for last week.\n",
}


async def test_a_page_is_judged_once_and_its_snippets_still_redacted(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    lookups: list[list[int]] = []
    real = sensitive.excerpts

    def counted(guard: Any, conn: Any, note_ids: Any, *rest: Any) -> sensitive.Excerpts:
        ids = sorted(set(note_ids))
        lookups.append(ids)
        return real(guard, conn, ids, *rest)

    topics: list[dict[int, str] | None] = []
    real_topics = sensitive.topical_notes

    def topical(guard: Any, conn: Any, note_ids: Any, *rest: Any) -> set[int]:
        topics.append(dict(rest[0]) if rest and rest[0] is not None else None)
        return real_topics(guard, conn, note_ids, *rest)

    monkeypatch.setattr(sensitive, "excerpts", counted)
    monkeypatch.setattr(sensitive, "topical_notes", topical)
    async with started(make_vault(NOTES)) as h:
        await h.indexed()
        lookups.clear()
        topics.clear()
        out = await h.ok("search_text", query="rocket console")
        items = {i["path"]: i for i in out["items"]}
        assert set(items) == {"Keys.md", "Plain.md", "Money.md"}  # the relaxed pass adds two
        flags = {p: i["sensitive"] for p, i in items.items()}
        assert flags == {"Keys.md": True, "Plain.md": False, "Money.md": True}  # a secret; a money word
        assert KEY not in str(out) and "[REDACTED" in items["Keys.md"]["snippet"]
        assert items["Keys.md"]["highlights"] == []  # redacted: the offsets no longer hold
        assert items["Plain.md"]["snippet"] and items["Plain.md"]["highlights"]
        assert len(lookups) == 1, lookups  # one lookup for the flags and the snippets
        assert len(topics) == 1 and topics[0] is not None and len(topics[0]) == 3, topics  # its etags
