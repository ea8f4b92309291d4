"""A search over notes the index read only in part says so (review R4 s63 F2): a note longer
than `[limits] max_indexed_note_chars` is indexed up to the limit, so a word in its tail is not
found, and search_text / search_regex / search_hybrid answered `partial: false, items: []`, a
definite "no note holds it". Their answers now carry `capped` (how many notes in the search's
scope the caller may read were searched only in part, a few of their paths, and the limit),
taken from the indexer's file warnings; absent when no such note is in scope. Through the
dispatch chain with a small limit; no timings.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path

from service.indexer.caps import MAX_TAGS
from service.vault.events import FileChange
from tests.conftest import started
from tests.semantic.helpers import model_ready
from tests.semantic.helpers import settled as embedded

WITHIN = 60.0
LIMIT = 2048
BIG = "# Big\n\nearlyword\n" + "".join(f"filler line {i} of plain words\n" for i in range(200)) + "lateword\n"
BASE = {"A.md": "# A\n\nalpha\n", "Other/B.md": "# B\n\nbeta lateword\n", "Secret/S.md": "# S\n\nsecret\n"}


async def test_text_and_regex_searches_name_the_notes_searched_only_in_part(make_vault: Callable[..., Path]) -> None:
    root = make_vault({**BASE, "Secret/Big.md": BIG})  # a capped note the caller may not read
    acl = {"prefix_rules": [{"path": "Secret", "read": "deny", "write": "deny"}]}
    async with started(root, limits={"max_indexed_note_chars": LIMIT}, acl=acl) as vg:
        await vg.indexed(WITHIN)
        for i in range(7):
            await vg.ok("create_note", path=f"Long/Big{i}", content=BIG)
        await vg.ok("create_note", path="Small", content="smallword\n")
        await vg.settled()

        expected = {"count": 7, "paths": [f"Long/Big{i}.md" for i in range(5)], "indexed_chars": LIMIT}
        out = await vg.ok("search_text", query="earlyword")
        assert len(out["items"]) == 7 and out["capped"] == expected
        out = await vg.ok("search_text", query="lateword")
        assert [i["path"] for i in out["items"]] == ["Other/B.md"] and out["capped"] == expected
        out = await vg.ok("search_regex", pattern="late.ord")
        assert [i["path"] for i in out["items"]] == ["Other/B.md"] and out["capped"] == expected
        # Scoped to a folder without a capped note: nothing to say.
        assert (await vg.ok("search_text", query="lateword", folder="Other")).get("capped") is None
        assert (await vg.ok("search_regex", pattern="lateword", folder="Other")).get("capped") is None
        scoped = await vg.ok("search_text", query="earlyword", folder="Long")
        assert scoped["capped"]["count"] == 7

        # A capped note made short again is read whole: no longer named.
        for i in range(7):
            etag = (await vg.ok("read_note", path=f"Long/Big{i}"))["etag"]
            await vg.ok(
                "write_note", path=f"Long/Big{i}", content="# Big\n\nlateword\n", mode="overwrite", expected_etag=etag
            )
        await vg.settled()
        out = await vg.ok("search_text", query="lateword")
        assert len(out["items"]) == 8 and out.get("capped") is None


async def test_hybrid_search_names_the_notes_searched_only_in_part(make_vault: Callable[..., Path]) -> None:
    await model_ready()
    root = make_vault(BASE)
    embeddings = {"provider": "builtin", "debounce_ms": 0}
    async with started(root, limits={"max_indexed_note_chars": LIMIT}, embeddings=embeddings) as vg:
        await vg.indexed(WITHIN)
        await vg.ok("create_note", path="Long/Big", content=BIG)
        await vg.settled()
        await embedded(vg)
        expected = {"count": 1, "paths": ["Long/Big.md"], "indexed_chars": LIMIT}
        assert (await vg.ok("search_hybrid", query="lateword"))["capped"] == expected
        assert (await vg.ok("search_semantic", query="lateword"))["capped"] == expected
        assert (await vg.ok("search_hybrid", query="lateword", folder="Other")).get("capped") is None
        # A note's neighbours are judged on the indexed text too (the long note itself is in scope).
        await vg.ok("create_note", path="Other/Near", content="# Near\n\nearlyword and more\n")
        await vg.settled()
        await embedded(vg)
        assert (await vg.ok("find_similar", path="Other/Near"))["capped"] == expected
        assert (await vg.ok("find_similar", path="Other/Near", folder="Other")).get("capped") is None


async def test_a_restart_still_names_the_notes_it_did_not_read_again(make_vault: Callable[..., Path]) -> None:
    """A warm restart reads no unchanged note again: the capped notes are named after it too
    (index_status's file warnings and the searches' `capped`), a note grown past the limit while
    the server was down as well; a note indexed whole is not."""
    root = make_vault({**BASE, "Big.md": BIG, "Grows.md": "# Grows\n\nshort\n"})
    settings = {"limits": {"max_indexed_note_chars": LIMIT}, "index": {"watch": False}}
    async with started(root, **settings) as vg:
        await vg.indexed(WITHIN)
        assert (await vg.ok("search_text", query="earlyword"))["capped"]["paths"] == ["Big.md"]
    (root / "Grows.md").write_text(BIG, encoding="utf-8")
    async with started(root, **settings) as vg:
        await vg.indexed(WITHIN)
        for _ in range(int(WITHIN / 0.05)):
            named = (await vg.ok("search_text", query="earlyword")).get("capped")
            if named is not None and len(named["paths"]) == 2:
                break
            await asyncio.sleep(0.05)  # the restart names them in the background
        expected = {"count": 2, "paths": ["Big.md", "Grows.md"], "indexed_chars": LIMIT}
        assert (await vg.ok("search_text", query="lateword"))["capped"] == expected
        warnings = (await vg.ok("index_status"))["file_warnings"]
        assert warnings["by_reason"] == {"capped": 2}
        assert {w["path"]: w["detail"] for w in warnings["examples"]} == {
            p: f"text {len(BIG)} chars > {LIMIT}: the first {BIG.rfind(chr(10), 0, LIMIT) + 1} indexed"
            for p in ("Big.md", "Grows.md")
        }


async def test_search_vault_and_search_notes_name_the_notes_searched_only_in_part(
    make_vault: Callable[..., Path],
) -> None:
    """search_vault (the router agents are steered to) and search_notes search the same cut text
    (review R2 s64 F8): their text, regex, hybrid and full_text modes carry `capped` too; the
    tag and property modes (frontmatter, read whole) do not."""
    root = make_vault({**BASE, "Long/Big.md": "---\nstatus: open\n---\n" + BIG})
    async with started(root, limits={"max_indexed_note_chars": LIMIT}) as vg:
        await vg.indexed(WITHIN)
        expected = {"count": 1, "paths": ["Long/Big.md"], "indexed_chars": LIMIT}
        for args in ({"query": "lateword", "mode": "text"}, {"query": "lateword"}, {"query": "/late.ord/"}):
            out = await vg.ok("search_vault", **args)
            assert [i["path"] for i in out["items"]] == ["Other/B.md"] and out["capped"] == expected, args
        out = await vg.ok("search_vault", query="lateword", tags=["late"])
        assert out["mode"] == "hybrid" and out["capped"] == expected
        assert (await vg.ok("search_vault", query="lateword", folder="Other")).get("capped") is None
        assert (await vg.ok("search_vault", filters=[{"key": "status", "op": "==", "value": "open"}])).get(
            "capped"
        ) is None
        for mode in ("full_text", "hybrid"):
            out = await vg.ok("search_notes", query="lateword", mode=mode)
            assert [i["path"] for i in out["items"]] == ["Other/B.md"] and out["capped"] == expected, mode
            assert (await vg.ok("search_notes", query="lateword", mode=mode, folder="Other")).get("capped") is None
        assert (await vg.ok("search_notes", mode="properties", query="status=open")).get("capped") is None


async def test_semantic_modes_of_search_vault_and_search_notes_name_them(make_vault: Callable[..., Path]) -> None:
    await model_ready()
    root = make_vault(BASE)
    embeddings = {"provider": "builtin", "debounce_ms": 0}
    async with started(root, limits={"max_indexed_note_chars": LIMIT}, embeddings=embeddings) as vg:
        await vg.indexed(WITHIN)
        await vg.ok("create_note", path="Long/Big", content=BIG)
        await vg.settled()
        await embedded(vg)
        expected = {"count": 1, "paths": ["Long/Big.md"], "indexed_chars": LIMIT}
        assert (await vg.ok("search_vault", query="lateword", mode="semantic"))["capped"] == expected
        assert (await vg.ok("search_notes", query="lateword", mode="semantic"))["capped"] == expected
        assert (await vg.ok("search_notes", query="lateword", mode="hybrid"))["capped"] == expected
        assert (await vg.ok("search_vault", query="lateword", tags=["x"], mode="hybrid"))["capped"] == expected


async def test_a_note_announced_again_as_the_index_has_it_keeps_its_warnings(make_vault: Callable[..., Path]) -> None:
    """The watcher announces a note the index already has as it is on disk (vaultgate's own write
    echoed; a permission change or a sync tool touching nothing the index keeps): it is skipped,
    and the warnings recorded when it was indexed still hold: searches still say `capped`, and
    index_status still counts the note read with a fallback encoding. They were cleared, so
    searches answered without `capped` until the next reconcile. A change on disk is read again."""
    root = make_vault(BASE)
    async with started(root, limits={"max_indexed_note_chars": LIMIT}) as vg:
        await vg.indexed(WITHIN)
        await vg.ok("create_note", path="Long/Big", content=BIG)
        (root / "Latin.md").write_bytes("# Latin\n\ncaf\xe9 latinword\n".encode("latin-1"))
        await vg.settled()
        for _ in range(int(WITHIN / 0.05)):
            if (await vg.ok("search_text", query="latinword"))["items"]:
                break
            await asyncio.sleep(0.05)
        expected = {"count": 1, "paths": ["Long/Big.md"], "indexed_chars": LIMIT}
        assert (await vg.ok("search_text", query="earlyword"))["capped"] == expected
        warnings = (await vg.ok("index_status"))["file_warnings"]
        assert warnings["fallback_encoding"] == 1 and warnings["by_reason"] == {"capped": 1, "encoding": 1}

        again = [FileChange("modified", p, origin="external") for p in ("Long/Big.md", "Latin.md")]
        assert await vg.indexer().apply(again, only_if_changed=True) == []  # nothing changed
        assert (await vg.ok("search_text", query="earlyword"))["capped"] == expected
        assert (await vg.ok("index_status"))["file_warnings"] == warnings

        # Changed on disk: read again, and capped again; the Latin-1 note made UTF-8: no warning.
        (root / "Long" / "Big.md").write_text(BIG + "more\n", encoding="utf-8")
        (root / "Latin.md").write_text("# Latin\n\ncafé latinword\n", encoding="utf-8")
        await vg.indexer().apply(again, only_if_changed=True)  # (or the watcher has already)
        assert (await vg.ok("search_text", query="earlyword"))["capped"] == expected
        assert (await vg.ok("index_status"))["file_warnings"]["by_reason"] == {"capped": 1}


async def test_a_reconcile_that_finds_a_note_only_touched_keeps_its_warnings(make_vault: Callable[..., Path]) -> None:
    """A reconcile finds notes whose mtime changed but whose content is the one indexed (a sync tool
    or `touch`): they are not parsed again, so the warnings recorded when they were indexed still
    hold. They were cleared: a note capped by its tags lost `capped` until it changed (a note
    capped by its length was read whole again by the background naming to get it back)."""
    tags = "# Tags\n\n" + " ".join(f"#t{i}" for i in range(MAX_TAGS + 5)) + "\n"  # ~70,000 characters
    limit = 100_000
    big = "# Big\n\nearlyword\n" + "filler line of plain words\n" * (limit // 20) + "lateword\n"
    root = make_vault({**BASE, "Tags.md": tags, "Long/Big.md": big})
    async with started(root, limits={"max_indexed_note_chars": limit}) as vg:
        await vg.indexed(WITHIN)
        warnings = (await vg.ok("index_status"))["file_warnings"]
        assert warnings["by_reason"] == {"capped": 2}
        reads = vg.indexer()._read_whole
        for rel in ("Tags.md", "Long/Big.md"):
            st = (root / rel).stat()
            os.utime(root / rel, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
        reads.clear()  # the background naming would read the long note again if its warning went
        assert (await vg.indexer().reconcile())["unchanged_content"] == 2
        assert (await vg.ok("index_status"))["file_warnings"] == warnings
        expected = {"count": 1, "paths": ["Long/Big.md"], "indexed_chars": limit}
        assert (await vg.ok("search_text", query="earlyword"))["capped"] == expected
