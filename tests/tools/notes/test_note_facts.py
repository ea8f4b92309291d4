"""read_note's facts (title, properties, tags, links) come from the index only when it matches
the bytes just read; otherwise from parsing — either way they equal a fresh parse of the file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from service.markdown.parse import parse_note
from service.storage.db import DbError, DbOperationalError, connect
from service.tools.context import ToolContext
from service.tools.notes.note_facts import note_facts
from tests.conftest import started

NOTES = {
    "A.md": (
        "---\ntitle: Custom title\ndate: 2024-05-01\ntags: [proj/alpha, Review]\nscore: 3.5\n"
        "done: false\nauthors:\n  - Ann\n  - Bo\n---\n# Heading\n\nSee [[B]], [[B#Part|alias]], ![[img.png]],"
        " [md](C.md) and [[#Local]] again [[B]]. #inline/tag\n"
    ),
    "B.md": "# B title\n\nNo frontmatter, a [[Missing note]].\n",
    "Bad.md": "---\nkey: [unclosed\n---\nBody survives. #t\n",
}


def expected(text: str, rel: str) -> dict[str, object]:
    p = parse_note(rel, text)
    return {
        "title": p.title,
        "properties": p.properties,
        "tags": p.tags,
        "links": list(dict.fromkeys(link.target for link in p.links if link.target)),
        "frontmatter_error": p.frontmatter_error,
    }


async def test_read_note_facts_from_the_index_equal_a_fresh_parse(make_vault: Callable[..., Path]) -> None:
    root = make_vault(NOTES)
    async with started(root) as vg:
        await vg.indexed()
        for rel, text in NOTES.items():
            out = await vg.ok("read_note", path=rel)
            assert {k: out[k] for k in ("title", "properties", "tags", "links", "frontmatter_error")} == expected(
                text, rel
            ), rel


async def test_facts_come_from_the_index_only_when_its_etag_matches(make_vault: Callable[..., Path]) -> None:
    root = make_vault(NOTES)
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
        vault = vg.app.vaults["main"]
        ctx = ToolContext(
            principal=vg.principal,
            vault=vault,
            services=vg.app.services,
        )
        note = vault.files.read(vault.paths.resolve("B.md"))
        # A stale etag never matches the index row: the text given is parsed instead.
        changed = "# Changed title\n\nNow [[A]] #new\n"
        facts = await note_facts(ctx, "B.md", "not-the-indexed-etag", changed)
        assert (facts.title, facts.tags, facts.links) == ("B", ["new"], ["A"])  # the title is the file name
        # The matching etag is answered by the index (whose row still describes the old text).
        indexed = await note_facts(ctx, "B.md", note.etag, changed)
        assert (indexed.title, indexed.links) == ("B", ["Missing note"])


async def test_read_note_reports_an_edit_the_index_has_not_seen(make_vault: Callable[..., Path]) -> None:
    root = make_vault(NOTES)
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
        (root / "B.md").write_text("---\ntags: [fresh]\n---\n# New B\n\n[[A]]\n", encoding="utf-8")
        out = await vg.ok("read_note", path="B")
        assert (out["title"], out["tags"], out["links"], out["properties"]) == (
            "B",
            ["fresh"],
            ["A"],
            {"tags": ["fresh"]},
        )


async def test_a_busy_database_falls_back_to_a_pooled_reader(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault(NOTES)
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
        db = vg.app.services.db
        calls: list[str] = []

        def busy(sql: str, params: object = ()) -> object:
            calls.append(sql)
            raise DbOperationalError[-1]("database is locked")

        monkeypatch.setattr(db, "point_read", busy)
        out = await vg.ok("read_note", path="A")
        assert calls and out["title"] == "A" and out["tags"] == expected(NOTES["A.md"], "A.md")["tags"]


def test_db_error_classes_cover_the_driver_in_use() -> None:
    conn = connect(":memory:")
    try:
        conn.execute("SELECT * FROM no_such_table")
    except DbOperationalError as exc:
        assert isinstance(exc, DbError)
    else:  # pragma: no cover
        raise AssertionError("expected an error")
    finally:
        conn.close()
