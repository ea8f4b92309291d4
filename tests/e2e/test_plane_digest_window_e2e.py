"""The digest's counts end to end (real uvicorn, the SDK client, both eras): every note changed in
its window is counted (it counted the 200 newest rows read, memory notes among them, so memory
writes newer than the notes left the notes out), the newest of a folder listed by name and the
others as "… and N more"; a folder whose changes are older than the vault's 200 newest is named
too (B5 s79)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from mcp import Client

from service.plane.digest import NOTES_LISTED
from tests.conftest import e2e
from tests.e2e.calls import ok


async def test_the_digest_counts_every_note_changed(make_vault: Callable[..., Path], mode: str) -> None:
    vault = {f"Notes/N{i:03d}.md": f"# N{i:03d}\n\nThe note number {i} of the batch.\n" for i in range(120)}
    vault |= {f"Memory/E{i:03d}.md": f"---\nname: E{i:03d}\n---\n# E{i:03d}\n" for i in range(210)}
    root = make_vault(vault)
    hour_ago = time.time() - 3600
    for i in range(120):  # the notes an hour old, the memory notes newer
        os.utime(root / f"Notes/N{i:03d}.md", (hour_ago + i, hour_ago + i))
    async with e2e(root) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            await ok(c, "run_consolidation", jobs=["digest"], wait=True)
            [digest] = (await ok(c, "list_findings", kind="digest"))["items"]
            assert digest["detail"]["notes"] == 120, digest
            text = digest["detail"]["text"]
            assert "## Notes (120)" in text and f"… and {120 - NOTES_LISTED} more" in text, text
            assert "[[Notes/N119|N119]]" in text and text.count("[[Notes/") == NOTES_LISTED, text


async def test_a_folder_older_than_the_newest_changes_is_named(make_vault: Callable[..., Path], mode: str) -> None:
    """A folder whose changes were older than the 200 newest showed "… and 3 more", none named."""
    vault = {f"New/N{i:03d}.md": f"# N{i:03d}\n\nThe note number {i} of the batch.\n" for i in range(210)}
    vault |= {f"Old/O{i}.md": f"# O{i}\n\nAn older change, number {i}.\n" for i in range(3)}
    root = make_vault(vault)
    now = time.time()
    for i in range(210):
        os.utime(root / f"New/N{i:03d}.md", (now - 3600 + i, now - 3600 + i))
    for i in range(3):
        os.utime(root / f"Old/O{i}.md", (now - 7200, now - 7200))
    async with e2e(root) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            await ok(c, "run_consolidation", jobs=["digest"], wait=True)
            [digest] = (await ok(c, "list_findings", kind="digest"))["items"]
            text = digest["detail"]["text"]
            assert "## Old (3)" in text and "… and 3 more" not in text, text
            assert all(f"[[Old/O{i}|O{i}]]" in text for i in range(3)), text


async def test_the_entities_not_listed_are_counted(make_vault: Callable[..., Path], mode: str) -> None:
    """The memory section listed 50 of 55 entities updated and said nothing of the other 5."""
    async with e2e(make_vault({})) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        made = [{"name": f"Ent {i:02d}", "entityType": "person", "observations": []} for i in range(NOTES_LISTED + 5)]
        await ok(c, "create_entities", entities=made)
        await ok(c, "run_consolidation", jobs=["digest"], wait=True)
        [digest] = (await ok(c, "list_findings", kind="digest"))["items"]
        memory = digest["detail"]["text"].split("## Memory", 1)[1]
        assert memory.count("\n- Ent ") == NOTES_LISTED and memory.rstrip().endswith("- … and 5 more"), memory


async def test_odd_names_open_no_comment_in_the_kept_digest(make_vault: Callable[..., Path], mode: str) -> None:
    """A hand-made entity name, a folder and a note path holding `%%` or `<!--` were written raw
    into the digest, opening an Obsidian comment that hid its later lines (session 81). A note's
    quoted sentence gives the digest no tag and no embed (s84)."""
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    root = make_vault(
        {
            "Memory/Odd.md": f'---\nname: "Odd %% name"\nupdated: {now}\n---\n# Odd\n',
            "Odd %% folder/Inside.md": "Text of a note in an odd folder.\n",
            "Plain.md": "Text of a plain #draft note that embeds ![[Gone]] here.\n",  # quoted as text (s84)
            "Pipe|name.md": "Text of a note whose name holds a pipe.\n",  # and one a wikilink cannot name (s82)
            "Hash #1/C#1.md": "Text of a note whose path holds a hash.\n",  # linked with '#' as %23 (s83)
        }
    )
    async with e2e(root) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            await ok(c, "run_consolidation", jobs=["digest"], wait=True)
            [digest] = (await ok(c, "list_findings", kind="digest"))["items"]
            await ok(c, "apply_finding", finding_id=digest["id"])
            [kept] = (root / "Digests").iterdir()
            outline = await ok(c, "get_outline", path=f"Digests/{kept.name}")
            await h.indexed()
            links = (await ok(c, "get_outlinks", path=f"Digests/{kept.name}"))["items"]
            tags = {t["tag"]: t["count"] for t in (await ok(c, "list_tags"))["items"]}
    named = [(i["path"], i["resolved"]) for i in links]
    assert ("Pipe|name.md", True) in named and ("Hash #1/C#1.md", True) in named, links  # each names its note
    assert all(resolved for _, resolved in named) and tags == {"draft": 1}, (links, tags)  # no embed, no tag
    text = kept.read_text(encoding="utf-8")
    assert "%%" not in text and "- Odd &#37;&#37; name" in text, text
    assert "[[Plain|Plain]] (new): Text of a plain &#35;draft note that embeds Gone here." in text, text
    assert "[Inside](Odd%20%25%25%20folder/Inside.md)" in text and "[[Plain|Plain]]" in text, text
    assert "[C&#35;1](Hash%20%231/C%231.md)" in text, text
    headings = [h["text"] for h in outline["headings"]]
    assert headings[-1] == "Memory (1 entities updated)", headings  # the last heading is not hidden
