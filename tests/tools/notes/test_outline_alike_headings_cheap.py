"""get_outline of a note of thousands of headings named alike looks each subpath up once per page
(found attacking a real server, session 88): every heading of a page whose name others share was
checked against all the note's headings, one lookup per heading, so a page of 200 of 10,000
'## Same' read 2,000,000 headings (3.9 s of CPU a page, the server's other calls waiting on it).
The headings named alike on a page share the subpaths tried, and each is looked up once. Counted,
not timed: the lookups a page makes (`sections.heading_span`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.markdown import sections
from tests.conftest import started


@pytest.mark.parametrize(
    ("note", "links"),
    [
        ("".join(f"## Same\n\nx {i}\n\n" for i in range(3000)), [None] * 200),
        ("".join(f"# Day\n\n## Same\n\nx {i}\n\n" for i in range(1500)), [None] * 200),
    ],
    ids=["siblings", "under-parents-alike"],
)
async def test_a_page_of_headings_named_alike_looks_each_subpath_up_once(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, note: str, links: list[str | None]
) -> None:
    calls = [0]
    real = sections.heading_span

    def counted(*args: Any, **kwargs: Any) -> sections.Span:
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(sections, "heading_span", counted)
    async with started(make_vault({"Same.md": note})) as vg:
        page = await vg.ok("get_outline", path="Same")
        assert page["headings_total"] == 3000 and len(page["headings"]) == 200
        assert [h["link"] for h in page["headings"]][1:] == links[1:]
        assert calls[0] <= 4, calls[0]  # one lookup per heading of the page before: 200 and 400
        calls[0] = 0
        later = await vg.ok("get_outline", path="Same", cursor=page["next_cursor"])
        assert [h["line"] for h in later["headings"]][:1] == [page["headings"][-1]["line"] + 4]
        assert calls[0] <= 4, calls[0]
