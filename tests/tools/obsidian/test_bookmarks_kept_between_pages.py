"""list_bookmarks keeps the walk of an unchanged bookmarks.json between pages (session 89): every
page of a 100,000-item file read, parsed and walked it again, ~0.7 s of CPU a page while other
clients' calls waited ~1 s. A next page of the same version now reuses the walk; a page after the
file changed (a write that keeps its size and mtime included) lists the new version only, its
cursor going on after the bookmark it names there or `stale_cursor` when that one is gone; callers
who see different bookmarks never share a walk; an entry unused for a while is dropped. Counted
(walks, reads), never timed."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.obsidian.kept import Kept, KeptFiles
from service.tools.obsidian import config
from service.types import Principal
from service.vault import settled
from tests.conftest import Harness, started

N = 100_000  # top-level bookmarks, then a group of GROUPED
GROUPED = 1_500
SOME = 5_000  # where a test changes the file
FILE = ".obsidian/bookmarks.json"


def _bookmarks(n: int = N, changed: dict[int, str] | None = None, gone: frozenset[int] = frozenset()) -> str:
    urls = {i: f"https://x/{i:06d}" for i in range(n) if i not in gone} | (changed or {})
    items: list[Any] = [{"type": "url", "url": u, "ctime": i} for i, u in sorted(urls.items())]
    grouped = [{"type": "url", "url": f"https://g/{i:06d}", "ctime": i} for i in range(GROUPED)]
    items.append({"type": "group", "title": "G", "ctime": 0, "items": grouped})
    return json.dumps({"items": items}, indent=2)


def _urls(page: dict[str, Any]) -> list[str]:
    return [i["url"] for i in page["items"]]


async def test_next_pages_of_an_unchanged_file_reuse_its_walk(
    make_vault: Callable[..., Path], walks: list[int]
) -> None:
    root = make_vault({"A.md": "# A\n", FILE: _bookmarks()})
    async with started(root) as vg:
        pages = [await vg.ok("list_bookmarks", limit=1000)]
        for _ in range(3):
            pages.append(await vg.ok("list_bookmarks", limit=1000, cursor=pages[-1]["next_cursor"]))
        assert [u for p in pages for u in _urls(p)] == [f"https://x/{i:06d}" for i in range(4000)]
        assert {p["total"] for p in pages} == {N + 1 + GROUPED} and len({p["etag"] for p in pages}) == 1
        inside = await vg.ok("list_bookmarks", group="G", limit=1000)
        rest = await vg.ok("list_bookmarks", group="G", limit=1000, cursor=inside["next_cursor"])
        assert _urls(inside) + _urls(rest) == [f"https://g/{i:06d}" for i in range(GROUPED)]
        assert inside["total"] == GROUPED and rest["next_cursor"] is None
        assert walks[0] == 1  # one walk for the 6 pages: one each before


def _rewrite_in_place(path: Path, text: str) -> None:
    """`text` written into the same file (same inode), its size and mtime as they were: only its
    ctime tells the change (a change within the clock's tick is written again)."""
    before = os.stat(path)
    assert len(text.encode()) == before.st_size
    for _ in range(1000):
        with open(path, "r+", encoding="utf-8") as fh:
            fh.write(text)
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        now = os.stat(path)
        if now.st_ctime_ns != before.st_ctime_ns:
            break
    assert (now.st_ino, now.st_size, now.st_mtime_ns) == (before.st_ino, before.st_size, before.st_mtime_ns)
    assert now.st_ctime_ns != before.st_ctime_ns


@pytest.mark.parametrize("known_by", ["etag", "stat"])
async def test_a_change_that_keeps_size_and_mtime_is_seen_by_the_next_page(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, walks: list[int], known_by: str
) -> None:
    """`stat`: the file's key trusted at once (no margin), an unchanged page reads no byte and the
    change is told by the ctime alone; `etag`: the key never trusted (as within the margin after
    a change), the bytes are read again each page and their etag tells."""
    reads = [0]
    real_read = config.read_settled

    def counted(*args: Any) -> Any:
        reads[0] += 1
        return real_read(*args)

    monkeypatch.setattr(config, "read_settled", counted)
    monkeypatch.setattr(settled, "RACY_NS", 0 if known_by == "stat" else 1 << 62)
    root = make_vault({"A.md": "# A\n", FILE: _bookmarks()})
    async with started(root) as vg:
        first = await vg.ok("list_bookmarks", limit=100)
        again = await vg.ok("list_bookmarks", limit=100)
        assert again == first and walks[0] == 1
        assert reads[0] == (1 if known_by == "stat" else 2)
        _rewrite_in_place(root / FILE, _bookmarks(changed={150: "https://y/000150"}))
        second = await vg.ok("list_bookmarks", limit=100, cursor=first["next_cursor"])
        assert second["etag"] != first["etag"] and walks[0] == 2
        assert _urls(second)[50] == "https://y/000150"
        assert _urls(second)[:50] == [f"https://x/{i:06d}" for i in range(100, 150)]


async def test_a_cursor_of_an_earlier_version_goes_on_in_the_new_one_or_is_stale(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault({"A.md": "# A\n", FILE: _bookmarks(SOME)})
    async with started(root) as vg:
        first = await vg.ok("list_bookmarks", limit=100)
        # Ten bookmarks before the cursor's removed, one after it changed: the next page is all of
        # the new version, going on after the bookmark the cursor names.
        (root / FILE).write_text(_bookmarks(SOME, {150: "https://y/000150"}, frozenset(range(10))))
        second = await vg.ok("list_bookmarks", limit=100, cursor=first["next_cursor"])
        whole = await vg.ok("list_bookmarks", limit=1000)
        assert (second["etag"], second["total"]) == (whole["etag"], SOME - 10 + 1 + GROUPED)
        assert second["items"] == whole["items"][90:190]
        assert _urls(second)[50] == "https://y/000150"
        # The bookmark the cursor names removed: stale, nothing listed from either version.
        (root / FILE).write_text(_bookmarks(SOME, gone=frozenset({99})))
        stale = await vg.err("list_bookmarks", "validation_error", limit=100, cursor=first["next_cursor"])
        assert stale["details"]["reason"] == "stale_cursor"


async def test_callers_who_see_different_bookmarks_get_their_own_walk(make_vault: Callable[..., Path]) -> None:
    items = [{"type": "file", "path": f"{'Public' if i % 2 else 'Secret'}/n{i}.md", "ctime": i} for i in range(3000)]
    files: dict[str, str | bytes] = {f"{'Public' if i % 2 else 'Secret'}/n{i}.md": "# n\n" for i in range(3000)}
    root = make_vault({**files, FILE: json.dumps({"items": items})})
    narrow = Principal(subject="narrow", scopes=frozenset({"read:vault/Public/**"}), authenticated=True)
    everyone = Principal.local("test")

    async def page(vg: Harness, who: Principal, **args: Any) -> dict[str, Any]:
        vg.principal = who
        return await vg.ok("list_bookmarks", limit=500, **args)

    async with started(root) as vg:
        all1 = await page(vg, everyone)
        pub1 = await page(vg, narrow)
        all2 = await page(vg, everyone, cursor=all1["next_cursor"])
        pub2 = await page(vg, narrow, cursor=pub1["next_cursor"])
    assert (all1["total"], pub1["total"]) == (3000, 1500)
    assert [i["path"] for i in all1["items"] + all2["items"]] == [i["path"] for i in items[:1000]]
    assert [i["path"] for i in pub1["items"] + pub2["items"]] == [i["path"] for i in items[1:2000:2]]


async def test_a_walk_unused_for_a_while_is_dropped(make_vault: Callable[..., Path], walks: list[int]) -> None:
    root = make_vault({"A.md": "# A\n", FILE: _bookmarks(n=5000)})
    async with started(root) as vg:
        kept = vg.app.services.settings_files
        first = await vg.ok("list_bookmarks", limit=100)
        assert len(kept) == 1 and kept.release_idle() == 0  # used just now
        kept.idle_s = 0.0
        assert kept.release_idle() == 1 and len(kept) == 0
        await vg.ok("list_bookmarks", limit=100, cursor=first["next_cursor"])
        assert walks[0] == 2
        trimmer = next(c for c in vg.app.components if getattr(c, "name", "") == "heap-trim")
        assert kept.release_memory in trimmer.release  # what runs it each minute


def test_kept_files_hold_one_version_per_vault_and_file() -> None:
    now = [0.0]
    kept = KeptFiles(idle_s=60.0, clock=lambda: now[0])
    key = (1, 2, 3, 4, 5)
    kept.keep("v", "bookmarks.json", Kept(key, "e1", {"items": []}, ("everyone", 1)))
    kept.keep("w", "bookmarks.json", Kept(None, "e9", {}, ("everyone", 9)))
    found = kept.by_key("v", "bookmarks.json", key)
    assert found is not None and found.made == ("everyone", 1)
    assert kept.by_key("v", "bookmarks.json", (1, 2, 3, 4, 6)) is None  # another ctime: another version
    assert kept.by_key("w", "bookmarks.json", key) is None  # a key never settled names nothing
    assert kept.by_etag("w", "bookmarks.json", "e9", key) is not None  # known by its bytes, now by its key too
    assert kept.by_key("w", "bookmarks.json", key) is not None
    assert kept.by_etag("v", "bookmarks.json", "e2", None) is None and len(kept) == 1  # another version: dropped
    now[0] = 59.0
    assert kept.release_idle() == 0
    now[0] = 120.0
    assert kept.release_idle() == 1 and len(kept) == 0
