"""A long heading argument is compared with a note's headings once, not once per heading (found
by A1, session 87, attacking a real server): heading_span's fallback (the heading as a link
spells it) normalised the caller's text again for every heading of the note, so read_note of a
10,000-heading note with a 10,000-character heading took 9.5 s of the event loop, and another
client's list_vaults waited 7.7 s behind it. Counted, not timed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from service.markdown import sections
from tests.conftest import started

HEADINGS = 2000
LONG = "#".join(["H"] * 2000)


async def test_a_long_heading_is_normalised_once_whatever_the_note_holds(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    note = "".join("#" * (1 + i % 6) + " H\n" for i in range(HEADINGS))
    root = make_vault({"Deep.md": note})
    calls: list[int] = []
    real = sections.link_key

    def counted(text: str) -> str:
        calls.append(len(text))
        return real(text)

    monkeypatch.setattr(sections, "link_key", counted)
    async with started(root) as vg:
        await vg.indexed()
        for tool, args in (
            ("read_note", {"path": "Deep", "heading": LONG}),
            ("patch_note", {"path": "Deep", "heading": LONG, "content": "x\n", "position": "append"}),
        ):
            calls.clear()
            out = await vg.call(tool, **args)
            assert out.structured is not None
            error = out.structured["error"]
            assert (error["code"], error["details"]["reason"]) == ("validation_error", "not_found"), tool
            long_calls = [n for n in calls if n >= len(LONG) - 1]
            assert len(long_calls) == 1, (tool, len(long_calls))  # one per heading (2,000) before
        found = await vg.ok("read_note", path="Deep", heading=["H", "H"])
        assert found["content"].startswith("## H")
    assert (root / "Deep.md").read_text(encoding="utf-8") == note
