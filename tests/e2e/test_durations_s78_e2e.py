"""Session 78 (V2): a DQL duration's parts and `durationformat`, and field keys, as Dataview gives
them, over real HTTP with the SDK client in both protocol eras."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok


async def test_duration_parts_are_totals_and_durationformat_rolls_up(
    make_vault: Callable[..., Path], mode: str
) -> None:
    """Dataview reads `(due - start).days` as the whole span in days (Luxon shiftTo: 1 month 4
    days is 34, not 4), and durationformat rolls whole days into years (Dataview's docs example)."""
    files = {"P.md": "---\nstart: 2024-02-01\ndue: 2024-03-05\n---\nspent:: 90 minutes\n"}
    async with e2e(make_vault(files)) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await harness.indexed()
        query = (
            "TABLE WITHOUT ID (due - start).days, spent.hours, "
            'durationformat(dur("365 days 5 hours 49 minutes"), "yyyy ddd hh mm ss") FROM "P"'
        )
        out = await ok(client, "search_dql", query=query)
        assert [c["value"] for c in out["rows"][0]["cells"]] == [34, 1.5, "0001 000 05 49 00"]


async def test_field_keys_keep_underscores_as_dataview_names_them(make_vault: Callable[..., Path], mode: str) -> None:
    """Dataview's canonical key keeps '_' (due_date and duedate are two fields; they were one) and
    drops other digits and marks (`x²::` is `x`)."""
    files = {"K.md": "---\ndue_date: 2024-05-01\nduedate: 2030-01-01\n---\n[x²:: 4]\n"}  # bracketed: s79
    async with e2e(make_vault(files)) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await harness.indexed()
        out = await ok(client, "search_dql", query='TABLE WITHOUT ID due_date, duedate, x FROM "K"')
        assert [c["value"] for c in out["rows"][0]["cells"]] == ["2024-05-01", "2030-01-01", 4]


async def test_a_null_in_text_is_dataviews_render_null_as(make_vault: Callable[..., Path], mode: str) -> None:
    """Text + null is text with Dataview's default renderNullAs ('\\-'), not null; display(date)
    is 'MMMM dd, yyyy'."""
    files = {"N.md": "---\nstatus: open\n---\n"}
    async with e2e(make_vault(files)) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await harness.indexed()
        query = 'TABLE WITHOUT ID "Due: " + due, display(date(2024-01-05)) FROM "N"'
        out = await ok(client, "search_dql", query=query)
        assert [c["value"] for c in out["rows"][0]["cells"]] == ["Due: \\-", "January 05, 2024"]


async def test_round_and_remainder_as_javascript(make_vault: Callable[..., Path], mode: str) -> None:
    """round(-2.5) is Math.round's -2 and -5 % 3 JavaScript's -2 (Dataview's functions.ts, binaryop.ts);
    a date's week is floor(day / 7) + 1 and weekyear the ISO week (context.ts); sum of one number is it;
    substring and containsword as JavaScript's String.substring and \\b."""
    files = {"N.md": "---\nscore: -2.5\n---\n"}
    async with e2e(make_vault(files)) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await harness.indexed()
        query = 'TABLE WITHOUT ID round(score), -5 % 3, reverse("ab"), date(2024-03-15).week, date(2024-03-15).weekyear'
        query += ', sum(score), substring("hello", -2), containsword("Café", "caf")'
        query += ', split("abc", ""), regexreplace("a.b", "\\.", "$&$&")'
        query += ', regexmatch("^a", "abc")'
        out = await ok(client, "search_dql", query=query + ' FROM "N"')
        assert [c["value"] for c in out["rows"][0]["cells"]] == [
            -2,
            -2,
            "ba",
            3,
            11,
            -2.5,
            "hello",
            True,
            ["a", "b", "c"],
            "a..b",
            True,
        ]
