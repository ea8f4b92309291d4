"""Session 77 (V1): DQL answers compared with Dataview's own source (blacksmithgu/obsidian-dataview,
src/expression/parse.ts and functions.ts, and its tests src/test/function/*.test.ts), through the
dispatch chain."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started


def cells(out: dict[str, Any]) -> list[Any]:
    return [c["value"] for c in out["rows"][0]["cells"]]


async def test_a_string_keeps_the_backslash_of_an_escape_other_than_a_quote_or_a_backslash(
    make_vault: Callable[..., Path],
) -> None:
    """parse.ts `escapeCharacter`: `\\"` is a quote, `\\\\` a backslash, any other `\\x` stays
    `\\x`, so regexes work as written (string.test.ts: regextest("\\w+", "m3me") is true,
    split("hello  world", "\\s+") is ["hello", "world"]). The backslash was dropped: "\\d+" was the
    regex `d+`, "\\s*,\\s*" matched nothing, and "\\n" was a line break."""
    note = "---\nlist: 'a, b,c'\n---\n"
    async with started(make_vault({"Inbox 2024-07 v12.md": note})) as vg:
        await vg.indexed()
        query = (
            r'TABLE WITHOUT ID regextest("\w+", "m3me"), split(list, "\s*,\s*"), '
            r'regexreplace(file.name, "\d+", "#"), regexmatch("\S+ \d{4}-\d{2} v\d+", file.name), '
            r'"a\nb", "say \"hi\" \\ bye" FROM "Inbox 2024-07 v12"'
        )
        out = await vg.ok("search_dql", query=query)
        assert cells(out) == [True, ["a", "b", "c"], "Inbox #-# v#", True, "a\\nb", 'say "hi" \\ bye']
        rows = await vg.ok("search_dql", query=r'LIST WHERE regexmatch(".*\d{4}.*", file.name)')
        assert [r["path"] for r in rows["rows"]] == ["Inbox 2024-07 v12.md"]


async def test_date_of_a_link_reads_its_display_then_its_path_then_its_page(make_vault: Callable[..., Path]) -> None:
    """functions.ts `date`, for a link: the display text parsed as a date, then the path, then the
    linked page's file.day (functions.test.ts: date([[2020-04-18]]) is 2020-04-18 and
    date([[Place|2021-04]]) is 2021-04-01). A display date was ignored (null), and a link that
    resolves nowhere lost its path's last three characters: date([[2020-04-18]]) was 2020-04-01."""
    files = {
        "Log.md": "---\nwhen: '[[Meeting|2024-03-02]]'\nday: '[[2024-12-30]]'\n---\n",
        "Meeting.md": "notes\n",
    }
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        query = (
            "TABLE WITHOUT ID date(when), date(day), date([[2020-04-18]]), date([[Place|2021-04]]), "
            'date([[Meeting]]), display(null), display(list("a", null)) FROM "Log"'
        )
        out = await vg.ok("search_dql", query=query)
        assert cells(out) == ["2024-03-02", "2024-12-30", "2020-04-18", "2021-04-01", None, "", "a, "]


async def test_sort_orders_strings_as_localecompare_and_types_by_their_names(make_vault: Callable[..., Path]) -> None:
    """value.ts compareValue: two strings compare with `localeCompare` (apple < Banana < cherry,
    a < A, e < é < f, '_' < '-' < digits < letters), two values of different types by their
    types' names (array < boolean < date < duration < link < number < object < string), null
    first. SORT, GROUP BY's groups and sort() follow it. Strings were in code point order
    (Banana before apple, Zebra before apple, é after z) and the types in another order (numbers
    and strings before dates, links and lists)."""
    names = ["apple", "Banana", "cherry", "Zebra", "éclair", "eclair", "_draft", "10 tips", "9 lives", "Apple"]
    files = {f"S/{name}.md": f"---\nkey: {name!r}\n---\n" for name in names}
    mixed = {"a": "'[[apple]]'", "b": "2024-05-01", "c": "7", "d": "'text'", "e": "[1, 2]", "f": "true", "g": ""}
    files |= {f"M/{k}.md": f"---\nv: {v}\n---\n" for k, v in mixed.items()}
    expected = ["_draft", "10 tips", "9 lives", "apple", "Apple", "Banana", "cherry", "eclair", "éclair", "Zebra"]
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        out = await vg.ok("search_dql", query='LIST FROM "S" SORT file.name')
        assert [r["path"][2:-3] for r in out["rows"]] == expected
        out = await vg.ok("search_dql", query='LIST FROM "S" SORT key DESC')
        assert [r["path"][2:-3] for r in out["rows"]] == expected[::-1]
        out = await vg.ok("search_dql", query='TABLE length(rows) FROM "S" GROUP BY key')
        assert [r["id"]["value"] for r in out["rows"]] == expected
        out = await vg.ok(
            "search_dql", query='TABLE WITHOUT ID sort(list("b", "B", "a", "é", "f")), "a" < "B" FROM "S/apple"'
        )
        assert cells(out) == [["a", "b", "B", "é", "f"], True]
        out = await vg.ok("search_dql", query='LIST FROM "M" SORT v')
        assert [r["path"][2:-3] for r in out["rows"]] == ["g", "e", "f", "b", "a", "c", "d"]


async def test_date_minus_date_counts_calendar_months_and_durations_read_as_luxon_writes_them(
    make_vault: Callable[..., Path],
) -> None:
    """binaryop.ts: date - date is `normalizeDuration(a.diff(b, ["years", "months", "days", ...]))`
    (eval.test.ts: the Luxon object's own `years` is 23; the query's `.years` reads context.ts
    `shiftTo("years").years`, 23.963... — session 78), and a duration is written by
    normalize.ts renderMinimalDuration: Luxon's shiftToAll().normalize().toHuman() (the answers below
    are Luxon 3.4.3's, Dataview's locked version). The difference was exact seconds only: .years 0,
    '52 weeks, 1 day' for a year, '4 weeks, 3 days' for 31 December to 31 January, and a negative
    span '-7 weeks, 3 days'; dur(46 days) was '6 weeks, 4 days'."""
    async with started(make_vault({"N.md": "---\nstart: 1997-05-17\nend: 2021-05-04\n---\n"})) as vg:
        await vg.indexed()
        query = (
            "TABLE WITHOUT ID (end - start).years, string(end - start), string(date(2024-01-01) - date(2023-01-01)), "
            "string(date(2024-01-31) - date(2023-12-31)), date(2024-01-31) - date(2023-12-31) = dur(1 month), "
            "string(date(2024-01-15) - date(2024-03-01)), string(date(2024-03-01T12:00) - date(2024-01-15T08:30)), "
            'string(dur(46 days)), string(dur(400 days)), string(dur(1 month) - dur(3 days)) FROM "N"'
        )
        out = await vg.ok("search_dql", query=query)
        assert cells(out) == [
            23.9633473832104, "23 years, 11 months, 2 weeks, 3 days", "1 year", "1 month", True,
            "-1 month, -2 weeks, -1 day",
            "1 month, 2 weeks, 1 day, 3 hours, 30 minutes", "1 month, 2 weeks, 4 days",
            "1 year, 2 months, 1 week, 1 day", "3 weeks, 4 days",
        ]  # fmt: skip
        diff = await vg.ok("search_dql", query='TABLE WITHOUT ID date(2024-03-01) - date(2024-01-15) FROM "N"')
        assert diff["rows"][0]["cells"][0] == {"type": "duration", "value": {"months": 1, "seconds": 15 * 86400}}


async def test_file_day_prefers_a_date_field_then_a_dashed_date_in_the_title(make_vault: Callable[..., Path]) -> None:
    """markdown-file.ts findDate: a `date` or `day` field holding a date (or a list whose first
    value is one) gives file.day; only without one does the title (normalize.ts extractDate: a
    dashed date anywhere, else eight digits). The title came first here (a note dated 3 March 2023
    named '20240105 note' had day 2024-01-05), a `day` field was never read, and a title holding
    both forms took the first match of either."""
    files = {
        "Log/20240105 note.md": "---\ndate: 2023-03-03\n---\n",
        "Log/Trip.md": "---\nDay: [2022-07-01, 2022-07-09]\n---\n",
        "Log/Standup.md": "Notes\n\nday:: 2021-11-30\n",
        "Log/20231231 recap of 2024-01-05.md": "x\n",
        "Log/2024-0105.md": "x\n",
        "Log/20240214.md": "---\ndate: soon\n---\n",
    }
    expected = {
        "Log/20240105 note.md": "2023-03-03", "Log/Trip.md": "2022-07-01", "Log/Standup.md": "2021-11-30",
        "Log/20231231 recap of 2024-01-05.md": "2024-01-05", "Log/2024-0105.md": None, "Log/20240214.md": "2024-02-14",
    }  # fmt: skip
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        out = await vg.ok("search_dql", query='TABLE file.day FROM "Log"')
        assert {r["path"]: r["cells"][0]["value"] for r in out["rows"]} == expected


async def test_dates_with_a_one_digit_offset_or_a_named_zone_are_dates(make_vault: Callable[..., Path]) -> None:
    """parse.ts `date`: an offset of one or two hour digits ("+9", parse.expression.test.ts) and a
    zone name in brackets ("2021-08-15T12:40:50[Europe/Paris]", 12:40:50 at +02:00) end a date.
    Both were text here. A zone Luxon does not know, or a name with a character outside parse.ts's
    class ([America/New_York]: '_'), leaves the text a string, as in Dataview."""
    note = (
        "---\nparis: '2021-08-15T12:40:50[Europe/Paris]'\nwinter: '2021-11-15T12:40:50[Europe/Paris]'\n"
        "tokyo: '1984-08-15T12:40:50+9'\nnowhere: '2021-11-15T12:40:50[Nope/Zone]'\n"
        "ny: '2021-11-15T12:40:50[America/New_York]'\n---\n"
    )
    async with started(make_vault({"Z.md": note})) as vg:
        await vg.indexed()
        query = (
            "TABLE WITHOUT ID typeof(paris), paris = date(2021-08-15T10:40:50Z), winter = date(2021-11-15T11:40:50Z), "
            'typeof(tokyo), tokyo = date(1984-08-15T03:40:50Z), typeof(nowhere), typeof(ny) FROM "Z"'
        )
        out = await vg.ok("search_dql", query=query)
        assert cells(out) == ["date", True, True, "date", True, "string", "string"]


async def test_min_and_max_pass_over_nulls_and_order_strings_as_localecompare(make_vault: Callable[..., Path]) -> None:
    """functions.ts min/max: `add2("*", "null", (a, _n) => a)` passes a null over, the rest by
    compareValue. In a GROUP BY, min(rows.due) over notes some of which have no due was null here
    (null is the least value of the order), and min("b", "A", "a") was "A" (code points)."""
    files = {
        "P/a.md": "---\nproject: x\ndue: 2024-05-01\n---\n",
        "P/b.md": "---\nproject: x\n---\n",
        "P/c.md": "---\nproject: x\ndue: 2024-03-01\n---\n",
    }
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        out = await vg.ok("search_dql", query='TABLE min(rows.due), max(rows.due) FROM "P" GROUP BY project')
        assert cells(out) == ["2024-03-01", "2024-05-01"]
        query = 'TABLE WITHOUT ID min(1, null), min(list(3, null, 2)), min("b", "A", "a"), max("b", "B") FROM "P/a"'
        assert cells(await vg.ok("search_dql", query=query)) == [1, 2, "a", "B"]
