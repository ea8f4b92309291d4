"""Session 70's note-reading fixes, end to end over HTTP with the SDK client in both eras; each is
tested through the dispatch chain beside its fix.

- An HTML comment block in a blockquote or callout hides its tasks and block ids, and ends with
  its quote; a code fence opened inside a comment ends at the comment's closing mark
  (tests/tools/notes/test_comments_in_quotes_and_fences.py).
- A memory entity note mixing CRLF, LF and CR keeps each line's end when the memory writes it; an
  added line ends as most of the note's do (tests/tools/memory/test_mixed_line_end_entities.py).
- What one Dataview evaluation holds side by side is bounded by [limits] max_eval_bytes
  (tests/tools/dataview/test_eval_memory.py), and so is one note's JSONLogic evaluation
  (tests/tools/search/test_jsonlogic_memory.py), and one query_base call's
  (tests/tools/obsidian/test_bases_eval_memory.py)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok

QUOTED = (
    "# Q\n\n- [ ] shown ^s\n\n"  # 0-3
    "> [!todo] Later\n> <!--\n> - [ ] hidden ^h\n> -->\n> - [ ] quoted shown\n\n"  # 4-9
    "%%\n```\n%%\n- [ ] after [[T]] ^a\n"  # 10-13
)


async def test_quoted_comments_and_fences_in_comments_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault({"Q.md": QUOTED, "T.md": "# T\n"})
    async with e2e(root) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            tasks = (await ok(c, "list_tasks", note="Q"))["items"]
            assert [t["line"] for t in tasks] == [3, 9, 14]
            assert (await ok(c, "search_dql", query='TASK FROM "Q"'))["total"] == 3
            assert (await error(c, "read_note", path="Q#^h"))["details"]["reason"] == "not_found"
            assert (await ok(c, "read_note", path="Q#^a"))["content"] == "- [ ] after [[T]] ^a\n"
            refused = await error(c, "set_task_status", path="Q", line=7, status="x", expected_text="hidden ^h")
            assert refused["details"]["reason"] == "not_a_task" and h.read("Q.md") == QUOTED
            await ok(
                c, "set_task_status", path="Q", line=14, status="x", date="2026-12-02", expected_text="after [[T]] ^a"
            )
            assert h.read("Q.md").endswith("- [x] after [[T]] ✅ 2026-12-02 ^a\n")
            assert [i["line"] for i in (await ok(c, "get_backlinks", path="T"))["items"]] == [14]


ANN_BODY = "# Ann\r\n\r\nseen\rtwice\n\r\n## Observations\r\n- likes tea\n"
ANN = "---\r\nname: Ann\r\nentityType: person\r\n---\r\n" + ANN_BODY + "\r\n"


async def test_memory_writes_keep_a_mixed_entity_notes_line_ends_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    root = make_vault({"Memory/Ann.md": ANN})
    async with e2e(root) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            await ok(c, "add_observations", observations=[{"entityName": "Ann", "contents": ["likes coffee"]}])
            text = (root / "Memory/Ann.md").read_bytes().decode()
            body = re.sub(r" \[recorded.*\^m-[0-9a-z]{12}", "", text[text.index("# Ann") :])
            assert body == ANN_BODY + "- likes coffee\r\n\r\n## Relations\r\n"
            opened = await ok(c, "open_nodes", names=["Ann"])
            assert [o["text"] for o in opened["entities"][0]["observations"]] == ["likes tea", "likes coffee"]


async def test_a_dataview_query_holding_too_much_is_refused_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    root = make_vault({f"N{i}.md": f"# N{i}\n" for i in range(6)})
    async with e2e(root, limits={"max_value_bytes": 100_000, "max_eval_bytes": 250_000}) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            many = 'TABLE length(map(split(padleft("", 3, "a"), ""), (x) => padleft(x, 90000, "b"))) AS n'
            refused = await error(c, "search_dql", query=many)
            assert refused["code"] == "compute_budget_exceeded" and refused["details"]["limit"] == "held"
            kept = await error(c, "search_dql", query='TABLE file.name SORT padleft(file.name, 90000, "x")')
            assert kept["details"]["limit"] == "held"
            one_by_one = 'TABLE length(padleft(file.name, 90000, "x")) AS n'
            assert (await ok(c, "search_dql", query=one_by_one))["total"] == 6


async def test_a_jsonlogic_rule_holding_too_much_is_refused_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    root = make_vault({f"N{i}.md": f"# N{i}\n" for i in range(3)})
    cat99 = {"cat": [{"var": ""}] * 99}
    async with e2e(root, limits={"max_value_bytes": 100_000, "max_eval_bytes": 250_000}) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            refused = await error(c, "query_jsonlogic", logic={"map": [["x" * 1000] * 30, cat99]})
            assert refused["code"] == "compute_budget_exceeded" and refused["details"]["limit"] == "held"
            assert (await ok(c, "query_jsonlogic", logic={"map": [["x" * 1000] * 2, cat99]}))["total"] == 3


async def test_a_base_holding_too_much_is_refused_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault({f"N{i}.md": f"# N{i}\n" for i in range(3)})
    base = "formulas:\n  f: '{}'\nviews:\n  - type: table\n    name: v\n    order: [file.name, formula.f]\n"
    async with e2e(root, limits={"max_value_bytes": 100_000, "max_eval_bytes": 250_000}) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            many = base.format('"a".repeat(3).split("").map(value.repeat(90000)).length')
            refused = await error(c, "query_base", yaml=many)
            assert refused["code"] == "compute_budget_exceeded" and refused["details"]["limit"] == "held"
            one_by_one = base.format('"a".repeat(3).split("").map(value.repeat(90000).length).length')
            assert (await ok(c, "query_base", yaml=one_by_one))["total"] == 3
