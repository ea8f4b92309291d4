"""search_dql, validate_dql and eval_dataview_field through the dispatch chain, on a vault
built for the purpose (tests/tools/dataview/dv_vault.py) with hand-computed expected rows."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, started
from tests.tools.dataview.dv_vault import DV_VAULT


@pytest.fixture
async def dv(make_vault: Callable[..., Path]) -> AsyncIterator[Harness]:
    async with started(make_vault(DV_VAULT)) as harness:
        await harness.indexed()
        yield harness


def paths(out: dict[str, Any]) -> list[str]:
    return [r["path"] for r in out["rows"]]


def cells(out: dict[str, Any]) -> list[list[Any]]:
    return [[c["value"] for c in r["cells"]] for r in out["rows"]]


class _DenyGuard:
    def __init__(self, denied: str) -> None:
        self.denied = denied

    def check(self, principal: object, vault: object, rel: str, op: str) -> None:
        if rel.startswith(self.denied):
            from service.errors import AclDenied

            raise AclDenied("denied", details={"path": rel, "op": op})

    def allows(self, principal: object, vault: object, rel: str, op: str) -> bool:
        return not rel.startswith(self.denied)


@pytest.mark.covers("search_dql", "success")
async def test_table_from_tag_where_sort(dv: Harness) -> None:
    out = await dv.ok("search_dql", query='TABLE rating, pages, mood FROM #book AND -"Private" SORT rating DESC')
    assert out["columns"] == ["File", "rating", "pages", "mood"]
    assert paths(out) == ["Books/Dune.md", "Books/Emma.md", "Books/Dune Messiah.md"]
    assert cells(out) == [[9, 412, "epic"], [8, 474, None], [7, 256, "bleak"]]
    assert out["rows"][0]["obsidian_url"].endswith("file=Books%2FDune.md")
    assert out["rows"][0]["cells"][0]["type"] == "number"
    nested = await dv.ok("search_dql", query="LIST FROM #book/scifi")
    assert paths(nested) == ["Books/Dune Messiah.md", "Books/Dune.md"]


async def test_inline_fields_in_every_form_and_types(dv: Harness) -> None:
    out = await dv.ok("eval_dataview_field", path="Books/Dune")
    f = out["fields"]
    assert f["pages"] == {"type": "number", "value": 412} and f["Pages"] == f["pages"]  # **Pages**:: bold key
    assert f["stars"]["value"] == 5 and f["tone"]["value"] == "dark" and f["mood"]["value"] == "epic"
    assert f["series"]["type"] == "link" and f["series"]["value"]["path"] == "Books/Dune Messiah.md"
    assert f["read"] == {"type": "date", "value": "2024-03-01"}
    assert f["file"]["value"]["etags"] == ["#book/scifi"] and f["file"]["value"]["tags"] == ["#book", "#book/scifi"]
    emma = (await dv.ok("eval_dataview_field", path="Emma"))["fields"]
    assert emma["reading-time"] == {"type": "duration", "value": {"months": 0, "seconds": 2 * 86400 + 4 * 3600}}
    assert emma["tags-list"] == {"type": "array", "value": ["a", "b"]}
    one = await dv.ok("eval_dataview_field", path="Projects/Alpha", field="file.tasks.text")
    assert one["fields"]["file.tasks.text"]["value"] == [
        "write intro [priority:: 1]",
        "outline ✅ 2025-12-01",
        "pick title",
    ]
    code = (await dv.ok("eval_dataview_field", path="Code"))["fields"]
    assert "fake" not in code and code["real"]["value"] == "yes" and code["file"]["value"]["tasks"] == []


async def test_group_by_flatten_limit_and_functions(dv: Harness) -> None:
    grouped = await dv.ok(
        "search_dql", query='TABLE length(rows) AS n, sum(rows.rating) AS total FROM "Books" GROUP BY genre'
    )
    assert grouped["grouped"] and [r["id"]["value"] for r in grouped["rows"]] == ["classic", "scifi"]
    assert cells(grouped) == [[1, 8], [2, 16]]
    flat = await dv.ok("search_dql", query='TABLE WITHOUT ID author FROM "Books" FLATTEN authors AS author SORT author')
    assert flat["columns"] == ["author"] and cells(flat) == [["Frank Herbert"], ["Frank Herbert"], ["Jane Austen"]]
    tasks = await dv.ok("search_dql", query='TABLE t.text FROM "Projects" OR "Books" FLATTEN file.tasks AS t')
    assert paths(tasks) == ["Projects/Alpha.md"] * 3 + ["Projects/Beta.md"]  # no tasks, no row
    limited = await dv.ok("search_dql", query='LIST upper(genre) FROM "Books" SORT file.name ASC LIMIT 2')
    assert [r["value"]["value"] for r in limited["rows"]] == ["SCIFI", "SCIFI"] and limited["total"] == 2
    dates = await dv.ok(
        "search_dql",
        query='LIST FROM "Projects" WHERE due > date(2026-01-01) AND due - date(2026-01-01) < dur(30 days)',
    )
    assert paths(dates) == ["Projects/Alpha.md"]
    lam = await dv.ok("search_dql", query="LIST WHERE any(file.tasks, (t) => !t.completed) SORT file.path")
    assert paths(lam) == ["Private/Secret.md", "Projects/Alpha.md", "Projects/Beta.md"]


async def test_sources_links_outgoing_and_this(dv: Harness) -> None:
    assert paths(await dv.ok("search_dql", query="LIST FROM [[Dune]]")) == [
        "Books/Emma.md",
        "Private/Secret.md",
        "Projects/Alpha.md",
    ]
    out = await dv.ok("search_dql", query="LIST FROM outgoing([[Alpha]])")
    assert paths(out) == ["Books/Dune.md", "Books/Emma.md"]
    both = await dv.ok("search_dql", query='LIST FROM [[Alpha]] OR "Books/Emma"')
    assert paths(both) == ["Books/Emma.md", "Daily/2026-01-05.md", "Projects/Beta.md"]
    this = await dv.ok("search_dql", query="LIST WHERE file.name = this.file.name", origin="Books/Dune.md")
    assert paths(this) == ["Books/Dune.md"]
    daily = await dv.ok("search_dql", query="CALENDAR file.day")
    assert [(r["path"], r["date"]) for r in daily["rows"]] == [("Daily/2026-01-05.md", "2026-01-05")]


async def test_task_queries(dv: Harness) -> None:
    out = await dv.ok("search_dql", query='TASK FROM "Projects" WHERE !completed')
    assert [(r["path"], r["line"], r["text"]) for r in out["rows"]] == [
        ("Projects/Alpha.md", 7, "write intro [priority:: 1]"),
        ("Projects/Beta.md", 5, "review [[Alpha]] 📅 2026-02-01"),
    ]
    assert out["rows"][0]["fields"]["priority"] == {"type": "number", "value": 1}
    assert out["rows"][1]["fields"]["due"] == {"type": "date", "value": "2026-02-01"}
    done = await dv.ok("search_dql", query="TASK WHERE completion = date(2025-12-01)")
    assert [(r["line"], r["parent"]) for r in done["rows"]] == [(8, 7)]
    grouped = await dv.ok("search_dql", query='TASK FROM "Projects" GROUP BY status')
    assert [len(g["tasks"]) for g in grouped["rows"]] == [2, 2]


async def test_denied_notes_are_invisible_everywhere(dv: Harness) -> None:
    dv.app.services.guard = _DenyGuard("Private/")
    out = await dv.ok("search_dql", query="TABLE rating FROM #book SORT rating DESC LIMIT 1")
    assert paths(out) == ["Books/Dune.md"] and out["total"] == 1
    counts = await dv.ok("search_dql", query="TABLE length(rows) AS n FROM #book GROUP BY genre")
    assert cells(counts) == [[1], [2]]
    assert paths(await dv.ok("search_dql", query="LIST FROM [[Dune]]")) == ["Books/Emma.md", "Projects/Alpha.md"]
    inlinks = await dv.ok("eval_dataview_field", path="Books/Dune", field="length(file.inlinks)")
    assert inlinks["fields"]["length(file.inlinks)"]["value"] == 2
    tasks = await dv.ok("search_dql", query="TASK WHERE !completed")
    assert "Private/Secret.md" not in paths(tasks)
    linked = await dv.ok("eval_dataview_field", path="Books/Dune", field="[[Private/Secret]].rating")
    assert linked["fields"]["[[Private/Secret]].rating"] == {"type": "null", "value": None}
    assert paths(await dv.ok("search_dql", query='LIST FROM "Private"')) == []
    await dv.err("eval_dataview_field", "acl_denied", path="Private/Secret.md")
    await dv.err("search_dql", "acl_denied", query="LIST WHERE this.rating", origin="Private/Secret.md")


@pytest.mark.covers("search_dql", "failure")
async def test_search_dql_failures(dv: Harness) -> None:
    before = dv.snapshot()
    err = await dv.err("search_dql", "query_syntax_error", query="TABLE rating\nFROM #book\nWHERE rating >")
    assert (err["details"]["line"], err["details"]["column"]) == (3, 15)
    await dv.err("search_dql", "query_syntax_error", query="SELECT * FROM x")
    await dv.err("search_dql", "query_syntax_error", query="LIST WHERE nosuchfunction(1)")
    await dv.err("search_dql", "query_syntax_error", query='LIST LIMIT "x"')
    await dv.err("search_dql", "validation_error", query="")
    await dv.err("search_dql", "validation_error", query="LIST", cursor="garbage")
    await dv.err("search_dql", "validation_error", query="LIST", extra=1)
    await dv.err("search_dql", "note_not_found", query="LIST", origin="Nope.md")
    assert dv.snapshot() == before


JS_BLOCK = """```dataviewjs
dv.table(["File", "Rating"], dv.pages("#book").map(p => [p.file.link, p.rating]))
```"""


@pytest.mark.covers("search_dql", "failure")
@pytest.mark.parametrize(
    "source",
    [
        JS_BLOCK,
        'dv.list(dv.pages("#book").file.name)',  # a block's content, without its fence
        "const books = dv.pages('#book');\ndv.list(books.file.link)",
        "$= dv.pages('#book').length",  # inline DataviewJS
    ],
)
async def test_dataviewjs_is_not_supported(dv: Harness, source: str) -> None:
    before = dv.snapshot()
    err = await dv.err("search_dql", "mode_unavailable", query=source)
    assert "not supported" in err["message"] and err["details"] == {"language": "dataviewjs", "supported": False}
    assert err["retryable"] is False and "DQL" in err["hint"]
    checked = await dv.ok("validate_dql", query=source)
    assert not checked["valid"] and checked["error"]["language"] == "dataviewjs"
    assert checked["error"]["supported"] is False
    assert dv.snapshot() == before


async def test_dql_naming_dv_fields_is_still_dql(dv: Harness) -> None:
    """Only text that does not parse as DQL is taken for JavaScript: a field named `dv` is fine."""
    out = await dv.ok("search_dql", query="LIST WHERE dv.x = 1")
    assert out["total"] == 0
    await dv.err("search_dql", "query_syntax_error", query="LIST WHERE dv.x =")


async def test_budget_exceeded(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(DV_VAULT), search={"jsonlogic_max_ops": 1000}) as h:
        await h.indexed()
        big = "LIST WHERE length(filter(" + "[" + ", ".join(["1"] * 400) + "], (x) => x > 0)) > 0"
        err = await h.err("search_dql", "compute_budget_exceeded", query=big + " FLATTEN [1,2,3,4,5,6,7,8,9,10] AS n")
        assert err["details"]["limit"] == "steps"


@pytest.mark.covers("validate_dql", "success")
@pytest.mark.covers("validate_dql", "failure")
async def test_validate_dql(dv: Harness) -> None:
    ok = await dv.ok("validate_dql", query='TABLE WITHOUT ID file.link AS "Note" FROM #a OR -"b" GROUP BY x')
    assert ok["valid"] and ok["parsed"]["type"] == "TABLE" and ok["parsed"]["without_id"]
    assert ok["parsed"]["columns"][0]["name"] == "Note"
    assert ok["parsed"]["source"] == ["or", ["tag", "a"], ["not", ["path", "b"]]]
    bad = await dv.ok("validate_dql", query="LIST\nWHERE (a")
    assert not bad["valid"] and (bad["error"]["line"], bad["error"]["column"]) == (2, 9)
    await dv.err("validate_dql", "validation_error", query="")


@pytest.mark.covers("eval_dataview_field", "success")
@pytest.mark.covers("eval_dataview_field", "failure")
async def test_eval_dataview_field(dv: Harness) -> None:
    out = await dv.ok("eval_dataview_field", path="Dune", field="round(rating / 2, 1)")
    assert out["path"] == "Books/Dune.md" and out["fields"]["round(rating / 2, 1)"] == {"type": "number", "value": 4.5}
    await dv.err("eval_dataview_field", "note_not_found", path="Nope")
    await dv.err("eval_dataview_field", "query_syntax_error", path="Dune", field="rating +")


async def _until(dv: Harness, query: str, want: list[str]) -> list[str]:
    """Run `query` after each index generation until its paths are `want` (bounded)."""
    from service.indexer.runner import indexer_of

    indexer = indexer_of(next(iter(dv.app.vaults.values())))
    assert indexer is not None
    found: list[str] = []
    for _ in range(50):
        generation = indexer.generation
        found = paths(await dv.ok("search_dql", query=query))
        if found == want:
            return found
        await indexer.wait_for(lambda g=generation: indexer.generation > g, within=60)  # type: ignore[misc]
    return found


async def test_pages_follow_edits(dv: Harness) -> None:
    assert paths(await dv.ok("search_dql", query="LIST WHERE stars = 5")) == ["Books/Dune.md"]
    # An edit re-parses the note; the untouched Emma's file.inlinks still see the new link to it.
    await dv.ok("append_note", path="Daily/2026-01-05", content="[stars:: 5] and [[Emma]]\n")
    assert await _until(dv, "LIST WHERE stars = 5", ["Books/Dune.md", "Daily/2026-01-05.md"]) == [
        "Books/Dune.md",
        "Daily/2026-01-05.md",
    ]
    emma = await dv.ok("eval_dataview_field", path="Emma", field="file.inlinks")
    assert [x["path"] for x in emma["fields"]["file.inlinks"]["value"]] == ["Daily/2026-01-05.md", "Projects/Alpha.md"]
    # A new note changes where names resolve: everything is rebuilt.
    await dv.ok("create_note", path="Books/New.md", content="stars:: 5\n")
    want = ["Books/Dune.md", "Books/New.md", "Daily/2026-01-05.md"]
    assert await _until(dv, "LIST WHERE stars = 5", want) == want


@pytest.mark.covers("dataview", "success")
@pytest.mark.covers("dataview", "failure")
async def test_the_dataview_domain_meta_tool(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(DV_VAULT), tool_facade={"mode": "domain"}) as h:
        await h.indexed()
        out = await h.ok("dataview", operation="search_dql", arguments={"query": 'LIST FROM "Books/Emma"'})
        assert out["tool"] == "search_dql" and [r["path"] for r in out["result"]["rows"]] == ["Books/Emma.md"]
        await h.err("dataview", "query_syntax_error", operation="search_dql", arguments={"query": "LIST FROM"})
        await h.err("dataview", "validation_error", operation="search_text", arguments={"query": "x"})


async def test_every_documented_query_runs(dv: Harness) -> None:
    from tests.unit.dataview.test_documented_queries import DOCUMENTED_QUERIES

    for query in DOCUMENTED_QUERIES:
        result = await dv.call("search_dql", query=query, origin="Books/Dune.md")
        assert not result.is_error, (query, result.structured)
