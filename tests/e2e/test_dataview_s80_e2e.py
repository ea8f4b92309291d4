"""Session 80 (D1): Dataview fixes over real HTTP with the SDK client in both protocol eras."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok


async def test_validate_dql_refuses_what_search_dql_refuses(make_vault: Callable[..., Path], mode: str) -> None:
    """validate_dql called valid a query naming an unknown function or calling one with the wrong
    number of arguments (it only parsed); search_dql then refused it. Both agree now."""
    files = {"A.md": "---\ndue: 2024-03-01\n---\n"}
    async with e2e(make_vault(files)) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await harness.indexed()
        query = 'LIST FROM "A"\nWHERE striptime(due, 1)'
        checked = await ok(client, "validate_dql", query=query)
        assert checked["valid"] is False and checked["error"]["function"] == "striptime", checked
        assert (checked["error"]["line"], checked["error"]["column"]) == (2, 7)
        ran = await error(client, "search_dql", query=query)
        assert ran["code"] == "query_syntax_error" and ran["details"]["function"] == "striptime"
        fine = await ok(client, "validate_dql", query='LIST FROM "A" WHERE striptime(due) LIMIT 1')
        assert fine["valid"] is True


async def test_comments_in_a_query_are_skipped(make_vault: Callable[..., Path], mode: str) -> None:
    """`// comments` between clauses, as Dataview reads them, were query_syntax_error."""
    files = {"Books/A.md": "---\nrating: 7\n---\n", "Other.md": "---\nrating: 1\n---\n"}
    async with e2e(make_vault(files)) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await harness.indexed()
        query = 'TABLE rating // out of 10\nFROM "Books" // this folder only\n// WHERE rating > 8\n'
        out = await ok(client, "search_dql", query=query)
        assert out["columns"] == ["File", "rating"] and [r["path"] for r in out["rows"]] == ["Books/A.md"]


async def test_functions_vectorise_as_the_plugin_does(make_vault: Callable[..., Path], mode: str) -> None:
    """contains over a list of needles, number * text, truncate at the length and list[-1]
    answered other values than Dataview's functions.ts, binaryop.ts and context.ts give."""
    files = {"N.md": "---\nk: [x, y]\n---\n"}
    async with e2e(make_vault(files)) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await harness.indexed()
        query = 'TABLE WITHOUT ID contains(k, ["x", "q"]), 3 * "ab", truncate("hello", 5), k[-1] FROM "N"'
        out = await ok(client, "search_dql", query=query)
        assert [c["value"] for c in out["rows"][0]["cells"]] == [[True, False], "ababab", "he...", None]


async def test_hash_is_the_plugins_number(make_vault: Callable[..., Path], mode: str) -> None:
    """hash() answered a number of the server's own; it is Dataview's cyrb53."""
    async with e2e(make_vault({"N.md": "x:: 1\n"})) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await harness.indexed()
        out = await ok(client, "search_dql", query='TABLE WITHOUT ID hash("re", "venge") FROM "N"')
        assert out["rows"][0]["cells"][0]["value"] == 4051478007546757


async def test_from_a_link_to_no_note(make_vault: Callable[..., Path], mode: str) -> None:
    """`FROM [[Ghost]]` with no note Ghost answered no page; Dataview lists the pages linking to it."""
    files = {"A.md": "Waiting on [[Ghost]].\n", "B.md": "nothing\n"}
    async with e2e(make_vault(files)) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await harness.indexed()
        out = await ok(client, "search_dql", query="LIST FROM [[Ghost]]")
        assert [r["path"] for r in out["rows"]] == ["A.md"]


async def test_currencyformat_of_a_negative_amount(make_vault: Callable[..., Path], mode: str) -> None:
    """currencyformat(-5) was `$-5.00` and JPY had two decimals; Intl en-US writes `-$5.00`, `¥1,235`."""
    async with e2e(make_vault({"N.md": "x:: 1\n"})) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await harness.indexed()
        query = 'TABLE WITHOUT ID currencyformat(-5), currencyformat(1234.5, "JPY") FROM "N"'
        out = await ok(client, "search_dql", query=query)
        assert [c["value"] for c in out["rows"][0]["cells"]] == ["-$5.00", "¥1,235"]


async def test_tasks_grouped_twice(make_vault: Callable[..., Path], mode: str) -> None:
    """`TASK GROUP BY ... GROUP BY ...` answered internal_error; the groups nest, as in Dataview."""
    files = {"A.md": "- [ ] one\n- [x] two\n", "B.md": "- [ ] three\n"}
    async with e2e(make_vault(files)) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await harness.indexed()
        out = await ok(client, "search_dql", query="TASK GROUP BY file.name GROUP BY length(rows)")
        assert [g["id"]["value"] for g in out["rows"]] == [1, 2]
        assert [t["text"] for t in out["rows"][1]["tasks"][0]["tasks"]] == ["one", "two"]
