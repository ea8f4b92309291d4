"""bundle_files and bundle_folder under a small response limit ([governor] max_response_bytes of
4 KB, the least is 1 KB) page a note instead of answering `overflow`.

Before: a page's entries could take 4,096 bytes whatever the limit (a floor), so with a 4 KB limit
the page with its manifest and text rendering was 4,314 bytes: `overflow` on every page, and the
note could not be read at all (found by H3, s75, checking the hint that names bundle_files)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

LINE = "word " * 4000  # one 20,000-character line


@pytest.mark.parametrize("limit", [4096, 8192])
async def test_a_long_note_is_paged_under_a_small_response_limit(make_vault: Callable[..., Path], limit: int) -> None:
    async with started(make_vault({"Line.md": LINE + "\n"}), governor={"max_response_bytes": limit}) as vg:
        text, cursor = "", None
        for _ in range(200):
            page = await vg.ok("bundle_files", paths=["Line"], max_bytes=1500, **({"cursor": cursor} if cursor else {}))
            text += "".join(e["content"] for e in page["entries"])
            if (cursor := page["next_cursor"]) is None:
                break
        assert text == LINE + "\n"
