"""A later page of a long note costs what the page holds, not the whole note (U13, session 79).

Each page of bundle_files / bundle_folder read, decoded and hashed the whole note to check that
the cursor's version is still the note's (a 50 MB note: ~115 ms of CPU and +104 MB of peak RSS a
page of 100 KB, ~500 pages). A page that splits a long note now keeps what its next pages need
(`service.tools.bundles.known`) with the file's stat key (`service.vault.settled`: device, inode,
size, mtime and ctime in ns, taken before and after the read that hashed it, and only for a file
last changed `RACY_NS` before that read); a next page whose key still matches reads only the
bytes of the characters it packs (~3 ms, +0 MB). An edit between pages changes the key: the next
page reads the note whole and restarts it, as before. The pages are the same as before (1,971
pages of three notes, both tools, three modes, three budgets, with secrets, compared as JSON).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import service.vault.notefile
from tests.conftest import Harness, started

LINE = "A long log line about the budget, 40 $ spent, and more words é 🧭 to fill it up.\n"
SECRET = "api_key: sk-live-0123456789abcdefghijklmnopqrstuvwx\n"
TEXT = "---\ntitle: log\n---\n# Log\n" + "".join(LINE + (SECRET if i % 501 == 0 else "") for i in range(14_000))
ASCII = "# Plain\n" + "A plain line of the log with [[Home]] and some words, numbers 12345.\n" * 16_000


@pytest.fixture
def hashed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sizes of the files a read hashed (a note read whole)."""
    sizes: list[int] = []
    etag_of = service.vault.notefile.etag_of

    def counted(data: bytes) -> str:
        sizes.append(len(data))
        return etag_of(data)

    monkeypatch.setattr(service.vault.notefile, "etag_of", counted)
    return sizes


def settled_now(monkeypatch: pytest.MonkeyPatch) -> None:
    """The notes a test just wrote count as settled (else each would wait `RACY_NS`)."""
    try:
        import service.vault.settled
    except ImportError:  # before 2026-12-03 (U13): no note was known by its stat
        return
    monkeypatch.setattr(service.vault.settled, "RACY_NS", 0)


async def pages(
    vg: Harness, tool: str, args: dict[str, Any], cursor: str | None = None, most: int = 10_000
) -> list[Any]:
    out: list[Any] = []
    while len(out) < most:
        page = await vg.ok(tool, **args, **({"cursor": cursor} if cursor else {}))
        out.append(page)
        cursor = page["next_cursor"]
        if cursor is None:
            break
    return out


@pytest.mark.parametrize("text", [TEXT, ASCII], ids=["unicode", "ascii"])
@pytest.mark.parametrize(
    ("tool", "args"),
    [("bundle_files", {"paths": ["Log"], "mode": "body"}), ("bundle_folder", {"folder": "", "max_tokens": 20_000})],
    ids=["files", "folder"],
)
async def test_later_pages_of_a_long_note_do_not_read_it_whole(
    make_vault: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
    hashed: list[int],
    text: str,
    tool: str,
    args: dict[str, Any],
) -> None:
    settled_now(monkeypatch)
    async with started(make_vault({"Log.md": text})) as vg:
        got = await pages(vg, tool, {"max_bytes": 100_000, **args} if "max_tokens" not in args else args)
    size = len(text.encode())
    assert len(got) >= 10
    assert hashed.count(size) == 1, f"{len(got)} pages read the note whole {hashed.count(size)} times"
    whole = "".join(e["content"] for p in got for e in p["entries"])
    body = text[len("---\ntitle: log\n---\n") :] if args.get("mode") == "body" and text is TEXT else text
    redacted = body.replace(SECRET.rstrip("\n"), "api_key: [REDACTED:secret]") if SECRET in body else body
    if "[REDACTED:" in whole:
        redacted = body.replace(SECRET.rstrip("\n"), next(x for x in whole.split("\n") if "[REDACTED:" in x))
    assert whole == redacted
    assert [e["part"] for p in got for e in p["entries"]] == list(range(1, len(got) + 1))


async def test_an_edit_between_pages_restarts_the_note(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, hashed: list[int]
) -> None:
    settled_now(monkeypatch)
    root = make_vault({"Log.md": TEXT})
    async with started(root) as vg:
        first = await pages(vg, "bundle_files", {"paths": ["Log"], "max_bytes": 100_000}, most=3)
        cursor = first[-1]["next_cursor"]
        note = root / "Log.md"
        same_size = TEXT.replace("budget", "BUDGET", 1)  # as long, in place
        with note.open("r+", encoding="utf-8", newline="") as f:
            f.write(same_size)
        st = note.stat()
        os.utime(note, ns=(st.st_atime_ns, st.st_mtime_ns - 10**12))  # its mtime set back: the ctime still moves
        again = await vg.ok("bundle_files", paths=["Log"], max_bytes=100_000, cursor=cursor)
    [entry] = again["entries"]
    assert entry["restarted"] and entry["start"] == 0 and entry["part"] == 1
    assert entry["content"][:100] == same_size[:100] and entry["etag"] != first[0]["entries"][0]["etag"]


async def test_a_note_changed_just_before_its_read_is_not_known_by_its_stat(
    make_vault: Callable[..., Path], hashed: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the test's shortcut, a note written a moment ago is read whole on every page:
    its stat could name two versions written within one tick of the file system's clock.
    "A moment" is `RACY_NS` (2 s), widened here to a day: on a loaded machine the server's start
    and four pages took longer than 2 s, the later pages then knew the note by its stat (2 reads
    whole, not 4) and the test failed."""
    import service.vault.settled

    monkeypatch.setattr(service.vault.settled, "RACY_NS", 86_400 * 10**9)
    async with started(make_vault({"Log.md": TEXT})) as vg:
        got = await pages(vg, "bundle_files", {"paths": ["Log"], "max_bytes": 100_000}, most=4)
    assert hashed.count(len(TEXT.encode())) == len(got) == 4
