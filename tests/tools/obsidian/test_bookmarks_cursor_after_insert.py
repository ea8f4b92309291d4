"""list_bookmarks: the first page after a bookmark was added above the cursor's one (Obsidian
adds new bookmarks at the top) looked for it by hashing every item's id, ~2.5 s of CPU for
100,000 bookmarks (session 89, left). The cursor now carries the bookmark's anchor (its ctime,
`bookmarks.anchor_of`) and finds it among the items of that anchor in the new version's walk
(made once per version): a page after such an edit hashes about what a page hashes. What the
cursor promises is kept: no bookmark is skipped or listed twice across an insert or a removal
above it, identical bookmarks stay told apart, one removed is `stale_cursor`. Counted (`key_of`
calls, walks), never timed."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.tools.models import decode_after, encode_after
from tests.conftest import started

N = 20_000
FILE = ".obsidian/bookmarks.json"
LIMIT = 200


def _url(i: int, ctime: int | None = None) -> dict[str, Any]:
    return {"type": "url", "url": f"https://x/{i:06d}", "ctime": i if ctime is None else ctime}


def _write(root: Path, items: list[Any]) -> None:
    (root / FILE).parent.mkdir(exist_ok=True)
    (root / FILE).write_text(json.dumps({"items": items}, indent=2), encoding="utf-8")


def _urls(page: dict[str, Any]) -> list[str]:
    return [i["url"] for i in page["items"]]


@pytest.mark.parametrize("edit", ["added above", "removed above", "both"])
async def test_a_page_after_an_edit_above_the_cursor_hashes_about_a_page_and_skips_nothing(
    make_vault: Callable[..., Path], key_hashes: list[int], walks: list[int], edit: str
) -> None:
    items = [_url(i) for i in range(N)]
    root = make_vault({"A.md": "# A\n"})
    _write(root, items)
    async with started(root) as vg:
        first = await vg.ok("list_bookmarks", limit=LIMIT)
        added = [_url(10**6, ctime=10**12)] if edit != "removed above" else []
        kept = items[3:] if edit != "added above" else items
        _write(root, [*added, *kept])  # Obsidian puts a new bookmark first
        key_hashes[0] = 0
        second = await vg.ok("list_bookmarks", limit=LIMIT, cursor=first["next_cursor"])
        assert key_hashes[0] <= LIMIT + 2, key_hashes[0]  # the page's ids, the cursor's check and find: N before
        assert walks[0] == 2  # one walk per version of the file
        assert _urls(first) + _urls(second) == [i["url"] for i in items[: 2 * LIMIT]]  # none skipped or repeated
        third = await vg.ok("list_bookmarks", limit=LIMIT, cursor=second["next_cursor"])
        assert _urls(third) == [i["url"] for i in items[2 * LIMIT : 3 * LIMIT]]
        assert second["total"] == third["total"] == len(added) + len(kept) and walks[0] == 2


async def test_identical_bookmarks_sharing_the_anchor_are_told_apart_after_an_insert(
    make_vault: Callable[..., Path], key_hashes: list[int]
) -> None:
    """Twelve copies of one link (ids `…`, `…-2`, … `…-12`) and other links of the same ctime:
    the cursor ends inside the copies; after an insert above, the page goes on after the copy it
    named, the copies and the others of its anchor alone hashed to find it."""
    same = [{"type": "url", "url": "https://same", "ctime": 7} for _ in range(12)]
    others = [_url(i, ctime=7) for i in range(5)]
    items = [_url(i) for i in range(100, 300)] + same[:6] + others + same[6:] + [_url(i) for i in range(300, 500)]
    root = make_vault({"A.md": "# A\n"})
    _write(root, items)
    async with started(root) as vg:
        whole = await vg.ok("list_bookmarks", limit=1000)
        first = await vg.ok("list_bookmarks", limit=212)  # ends at the 7th copy, the 12th item of anchor 7
        assert first["items"][-1]["id"].endswith("-7")
        _write(root, [_url(1, ctime=1), _url(2, ctime=7), *items])  # one of anchor 7 added above
        key_hashes[0] = 0
        second = await vg.ok("list_bookmarks", limit=50, cursor=first["next_cursor"])
        assert key_hashes[0] <= 50 + 2 * (len(same) + len(others) + 1) + 1, key_hashes[0]  # all 419 before
        assert second["items"][0]["id"] == whole["items"][212]["id"] and second["items"][0]["id"].endswith("-8")
        assert [i["id"] for i in first["items"] + second["items"]] == [i["id"] for i in whole["items"][:262]]


async def test_the_cursors_bookmark_removed_is_stale_and_an_older_cursor_still_goes_on(
    make_vault: Callable[..., Path], key_hashes: list[int]
) -> None:
    items = [_url(i) for i in range(N)]
    root = make_vault({"A.md": "# A\n"})
    _write(root, items)
    async with started(root) as vg:
        first = await vg.ok("list_bookmarks", limit=LIMIT)
        ident, at, anchor = decode_after(first["next_cursor"], t="bookmarks", g=None) or ()
        assert (at, anchor) == (LIMIT - 1, LIMIT - 1)
        older = encode_after([ident, at], t="bookmarks", g=None)  # a cursor of a server before anchors
        _write(root, [_url(10**6, ctime=10**12), *items])
        again = await vg.ok("list_bookmarks", limit=LIMIT, cursor=older)  # found the long way: every item hashed
        assert _urls(again) == [i["url"] for i in items[LIMIT : 2 * LIMIT]]
        _write(root, [_url(10**6, ctime=10**12), *items[: LIMIT - 1], *items[LIMIT:]])
        key_hashes[0] = 0
        stale = await vg.err("list_bookmarks", "validation_error", limit=LIMIT, cursor=first["next_cursor"])
        assert stale["details"]["reason"] == "stale_cursor" and key_hashes[0] <= 2, key_hashes[0]
        for bad in ([ident, at, [1]], [ident, at, {"a": 1}], [ident, at, 1, 2]):
            wrong = encode_after(bad, t="bookmarks", g=None)
            failed = await vg.err("list_bookmarks", "validation_error", limit=LIMIT, cursor=wrong)
            assert failed["details"]["field"] == "cursor"


async def test_a_group_paged_across_an_insert_above_goes_on_where_it_was(
    make_vault: Callable[..., Path], key_hashes: list[int]
) -> None:
    inner = [_url(i) for i in range(1000)]
    items = [_url(i) for i in range(5000, 5100)] + [{"type": "group", "title": "G", "ctime": 3, "items": inner}]
    root = make_vault({"A.md": "# A\n"})
    _write(root, items)
    async with started(root) as vg:
        first = await vg.ok("list_bookmarks", group="G", limit=LIMIT)
        moved = {**items[-1], "items": [_url(9000, ctime=10**12), *inner]}  # added at the top of the group
        _write(root, [_url(9001, ctime=10**12 + 1), *items[:-1], moved])
        key_hashes[0] = 0
        second = await vg.ok("list_bookmarks", group="G", limit=LIMIT, cursor=first["next_cursor"])
        assert key_hashes[0] <= LIMIT + 2 + 1, key_hashes[0]  # and the group's own id, by title
        assert _urls(first) + _urls(second) == [i["url"] for i in inner[: 2 * LIMIT]]
        assert second["total"] == len(inner) + 1


@pytest.mark.parametrize("ctime", [7, None], ids=["one ctime", "no ctime"])
async def test_bookmarks_sharing_one_ctime_are_paged_after_an_insert_without_hashing_them_all(
    make_vault: Callable[..., Path], key_hashes: list[int], ctime: int | None
) -> None:
    """Bookmarks imported at once share one ctime (or carry none): the cursor's anchor names them
    all. A page after an insert above still hashes about a page: the bookmark is looked for from
    where it was, outwards, and only the items shaped as it is count its copies (N before)."""
    items = [{k: v for k, v in _url(i, ctime=7).items() if ctime is not None or k != "ctime"} for i in range(N)]
    items[LIMIT + 5 : LIMIT + 8] = [{**items[LIMIT + 5]} for _ in range(3)]  # copies of one, past the cursor
    root = make_vault({"A.md": "# A\n"})
    _write(root, items)
    async with started(root) as vg:
        whole = await vg.ok("list_bookmarks", limit=1000)
        first = await vg.ok("list_bookmarks", limit=LIMIT)
        _write(root, [_url(10**6 + k, ctime=ctime) for k in range(3)] + items)  # three added above, same ctime
        key_hashes[0] = 0
        second = await vg.ok("list_bookmarks", limit=LIMIT, cursor=first["next_cursor"])
        assert key_hashes[0] <= 2 * LIMIT + 20, key_hashes[0]  # the page, its copies, the cursor's find: N before
        assert [i["id"] for i in first["items"] + second["items"]] == [i["id"] for i in whole["items"][: 2 * LIMIT]]
        older = encode_after(
            list(decode_after(first["next_cursor"], t="bookmarks", g=None) or ())[:2], t="bookmarks", g=None
        )
        key_hashes[0] = 0
        again = await vg.ok("list_bookmarks", limit=LIMIT, cursor=older)  # a cursor of a server before anchors
        assert again["items"] == second["items"] and key_hashes[0] <= 2 * LIMIT + 20, key_hashes[0]
        mid = await vg.ok("list_bookmarks", limit=7, cursor=first["next_cursor"])  # ends at the 2nd copy
        assert [i["id"] for i in mid["items"]] == [i["id"] for i in whole["items"][LIMIT : LIMIT + 7]]
        assert mid["items"][-1]["id"].endswith("-2")
        _write(root, [_url(2 * 10**6, ctime=ctime), *[_url(10**6 + k, ctime=ctime) for k in range(3)], *items])
        key_hashes[0] = 0
        after = await vg.ok("list_bookmarks", limit=3, cursor=mid["next_cursor"])  # goes on at the 3rd copy
        assert [i["id"] for i in after["items"]] == [i["id"] for i in whole["items"][LIMIT + 7 : LIMIT + 10]]
        assert after["items"][0]["id"].endswith("-3") and key_hashes[0] <= 3 + 20, key_hashes[0]
