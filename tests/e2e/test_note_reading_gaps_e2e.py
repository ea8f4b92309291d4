"""Gaps in how notes are read, end to end over HTTP with the SDK client in both eras; each is tested
through the dispatch chain beside its fix.

- tasks_filter's `exclude sub-items` keeps the tasks the Tasks plugin keeps: nothing before the
  list marker, or in a quote at most one space after the last `>`
  (tests/tools/tasks/test_exclude_sub_items.py).
- A read or edit of a block id the note does not have names its block ids and the closest
  (tests/tools/notes/test_missing_block_names_blocks.py).
- A Dataview field written as a property and as an inline field is a list whose dates stay dates,
  and the answer says so (`types`) (tests/tools/dataview/test_merged_field_types.py); a field on a
  task's line is the task's own, not its page's (tests/tools/dataview/test_task_fields_stay_on_tasks.py).
- An HTML comment block opened in a list item (`- <!--`) hides the item's lines below it, as
  CommonMark reads it (tests/tools/notes/test_comments_in_list_items.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok

NESTED = (
    "# Trip\n\n- [ ] book flights\n  - [ ] compare prices\n- packing\n    - [ ] buy adapter\n\n"
    "> [!todo] Errands\n> - [ ] renew passport\n>   - [ ] find photos\n"
)


async def test_exclude_sub_items_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault({"Trip.md": NESTED})) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            out = await ok(c, "tasks_filter", query="not done\nexclude sub-items\nsort by description")
            assert [i["description"] for i in out["items"]] == ["book flights", "renew passport"]
            out = await ok(c, "tasks_filter", query="NOT (exclude sub-items)\nsort by description")
            assert [i["description"] for i in out["items"]] == ["buy adapter", "compare prices", "find photos"]


async def test_a_missing_block_names_the_notes_block_ids_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    note = "# Launch\n\nThe goal. ^goal-para\n\n- [ ] book venue ^venue\n"
    async with e2e(make_vault({"Launch.md": note})) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            bad = await error(c, "read_note", path="[[Launch#^goal-pra]]")
            assert bad["code"] == "validation_error" and bad["details"]["reason"] == "not_found"
            assert (
                bad["details"]["blocks"] == ["goal-para", "venue"] and bad["details"]["suggestions"][0] == "goal-para"
            )
            bad = await error(c, "patch_note", path="Launch", block="venu", content="x\n")
            assert bad["details"]["suggestions"] == ["venue"] and h.read("Launch.md") == note


async def test_merged_dataview_dates_keep_their_type_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    note = "---\ndue: 2024-01-02\n---\n# Launch\n\nMoved: [due:: 2024-01-05]\n"
    async with e2e(make_vault({"Launch.md": note})) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            out = await ok(c, "eval_dataview_field", path="Launch", field="due")
            assert out["fields"]["due"] == {
                "type": "array",
                "value": ["2024-01-02", "2024-01-05"],
                "types": ["date", "date"],
            }
            out = await ok(c, "search_dql", query="TABLE due, due[1] - due[0] AS moved")
            cells = out["rows"][0]["cells"]
            assert cells[0]["types"] == ["date", "date"] and cells[1]["type"] == "duration"


async def test_a_tasks_dataview_field_is_not_its_pages_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    note = "---\ndue: 2024-01-02\n---\n# Rent\n\n- [ ] pay rent [due:: 2024-01-05]\n"
    async with e2e(make_vault({"Rent.md": note})) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            out = await ok(c, "eval_dataview_field", path="Rent", field="due - date(2024-01-01)")
            assert out["fields"]["due - date(2024-01-01)"] == {
                "type": "duration",
                "value": {"months": 0, "seconds": 86400},
            }
            out = await ok(c, "search_dql", query='TASK FROM "Rent"')
            assert out["rows"][0]["fields"]["due"] == {"type": "date", "value": "2024-01-05"}


async def test_an_html_comment_in_a_list_item_hides_its_tasks_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    note = "# L\n\n- [ ] shown\n- <!--\n  - [ ] hidden ^hid\n  -->\n- [ ] after\n"
    async with e2e(make_vault({"L.md": note})) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            tasks = (await ok(c, "list_tasks", note="L"))["items"]
            assert [t["text"] for t in tasks] == ["shown", "after"]
            assert (await ok(c, "search_dql", query='TASK FROM "L"'))["total"] == 2
            assert (await error(c, "read_note", path="L#^hid"))["details"]["reason"] == "not_found"
