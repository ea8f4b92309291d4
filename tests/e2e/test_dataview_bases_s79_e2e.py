"""Session 79 (V3): Dataview durations holding a fraction of a month and whole-line field keys,
over real HTTP with the SDK client in both protocol eras."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok


async def test_a_fraction_of_a_month_is_carried_into_weeks(make_vault: Callable[..., Path], mode: str) -> None:
    """An inline `1.5 months` is Luxon's normalised 1 month 2 weeks (44 days; was 30), dur(3
    months) / 2 the same, and date + dur(1.5 months) a month then 15 days (was a month)."""
    files = {"P.md": "spent:: 1.5 months\n"}
    async with e2e(make_vault(files)) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await harness.indexed()
        query = (
            "TABLE WITHOUT ID spent.days, string(dur(3 months) / 2), "
            'dateformat(date(2024-01-10) + dur(1.5 months), "yyyy-MM-dd") FROM "P"'
        )
        out = await ok(client, "search_dql", query=query)
        assert [c["value"] for c in out["rows"][0]["cells"]] == [44, "1 month, 2 weeks", "2024-02-25"]


async def test_a_whole_line_key_dataview_refuses_is_no_field(make_vault: Callable[..., Path], mode: str) -> None:
    """Prose with `::` (`The C++ std::vector`) and keys such as `e.g.` were fields; Dataview's
    full-line key parser takes no such key. `**Status**:: done` is the field Status."""
    files = {"K.md": "e.g.:: an example\nThe C++ std::vector is fast\n**Status**:: done\n"}
    async with e2e(make_vault(files)) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await harness.indexed()
        out = await ok(client, "search_dql", query='TABLE WITHOUT ID eg, row["the-c-std"], status FROM "K"')
        assert [c["value"] for c in out["rows"][0]["cells"]] == [None, None, "done"]


async def test_a_function_given_the_wrong_number_of_arguments_is_a_syntax_error(
    make_vault: Callable[..., Path], mode: str
) -> None:
    """`striptime(due, 1)` answered internal_error (a Python TypeError); it is a
    query_syntax_error naming the function and the count. min() of objects compares them."""
    files = {"A.md": "---\ndue: 2024-03-01\n---\n"}
    async with e2e(make_vault(files)) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await harness.indexed()
        got = await error(client, "search_dql", query='TABLE WITHOUT ID striptime(due, 1) FROM "A"')
        assert got["code"] == "query_syntax_error" and got["details"]["function"] == "striptime", got
        least = await ok(client, "search_dql", query='TABLE WITHOUT ID min([{a: 2}, {a: 1}]) FROM "A"')
        assert least["rows"][0]["cells"][0]["value"] == {"a": 1}  # objects compared: was internal_error
