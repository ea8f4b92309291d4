"""Session 78 (V2): DQL functions and operators checked one by one against Dataview's
functions.ts and binaryop.ts (JavaScript semantics), through the dispatch chain."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started


def cells(out: dict[str, Any]) -> list[Any]:
    return [c["value"] for c in out["rows"][0]["cells"]]


async def test_round_remainder_padding_and_reverse_as_javascript_computes_them(
    make_vault: Callable[..., Path],
) -> None:
    """round is Math.round (a half goes up: round(-2.5) is -2, was -3) and with digits
    parseFloat(n.toFixed(p)) (round(4.35, 1) is 4.3: the double is 4.3499..., was 4.4); `%` keeps the
    dividend's sign (-5 % 3 is -2, was 1; 5 % -3 is 2, was -1); padleft/padright repeat the whole
    padding (String.padStart: padleft("7", 4, "ab") is 'aba7', was 'aaa7'); reverse of a string
    reverses it (was null)."""
    async with started(make_vault({"N.md": "---\nscore: -2.5\n---\n"})) as vg:
        await vg.indexed()
        query = (
            "TABLE WITHOUT ID round(score), round(4.35, 1), round(-2.345, 2), -5 % 3, 5 % -3, -5.5 % 2, "
            'padleft("7", 4, "ab"), padright("7", 4, "ab"), padleft("7", 4, ""), reverse("abc") FROM "N"'
        )
        out = await vg.ok("search_dql", query=query)
        assert cells(out) == [-2, 4.3, -2.35, -2, 2, -1.5, "aba7", "7aba", "7", "cba"]


async def test_a_dates_week_and_weekyear_as_dataview_reads_them(make_vault: Callable[..., Path]) -> None:
    """context.ts: `d.weekyear` is Luxon's weekNumber (the ISO week: 11 for 15 March 2024, 1 for
    30 December 2024) and `d.week` is floor(day / 7) + 1 (3 for the 15th, 2 for the 7th). Here
    week was the ISO week and weekyear the ISO year (2024)."""
    async with started(make_vault({"2024-03-15.md": "x\n"})) as vg:
        await vg.indexed()
        query = (
            "TABLE WITHOUT ID file.day.week, file.day.weekyear, date(2024-12-30).weekyear, "
            'date(2024-03-07).week, date(2024-03-06).week FROM "2024-03-15"'
        )
        out = await vg.ok("search_dql", query=query)
        assert cells(out) == [3, 11, 1, 2, 1]


async def test_sum_and_average_of_a_single_value_and_of_durations(make_vault: Callable[..., Path]) -> None:
    """functions.ts: sum/product/average of a value that is no list is the value (`sum(hours)` over
    one number was null); average divides with the `/` operator, so durations average (it was null
    for anything but numbers); reduce over an empty list is null (reduce(list(), "&") was true)."""
    note = "---\nhours: 5\n---\n- [ ] a [spent:: 1 day]\n- [ ] b [spent:: 3 days]\n"
    async with started(make_vault({"N.md": note})) as vg:
        await vg.indexed()
        query = (
            "TABLE WITHOUT ID sum(hours), average(hours), product(hours), string(average(file.tasks.spent)), "
            'reduce(list(), "&"), average(list(1, 2)) FROM "N"'
        )
        out = await vg.ok("search_dql", query=query)
        assert cells(out) == [5, 5, 5, "2 days", None, 1.5]


async def test_substring_and_containsword_as_javascript(make_vault: Callable[..., Path]) -> None:
    """substring is String.prototype.substring: a negative start is 0 (substring("hello", -2) is
    'hello', was 'lo') and the ends swap (substring("hello", 3, 1) is 'el', was ''). containsword is
    /.*\\b<word>\\b.*/i, whose \\b knows ASCII word characters only: 'caf' is a word of 'Café au lait'
    (was false) and '#tag' after a space is none (was true)."""
    async with started(make_vault({"N.md": '---\ntitle: "Café au lait #tag"\n---\n'})) as vg:
        await vg.indexed()
        query = (
            'TABLE WITHOUT ID substring("hello", -2), substring("hello", 3, 1), containsword(title, "caf"), '
            'containsword(title, "#tag"), containsword(title, "LAIT") FROM "N"'
        )
        out = await vg.ok("search_dql", query=query)
        assert cells(out) == ["hello", "el", True, False, True]


async def test_split_replace_and_regexreplace_as_javascript(make_vault: Callable[..., Path]) -> None:
    """split is String.split by a RegExp: split("abc", "") is a, b, c (was '', a, b, c, ''), an empty
    match next to the last cut cuts nothing (split("a1b", "(\\d)?") is a, 1, b). replace(s, "", r) is
    split("").join(r): r between characters (was also at both ends). regexreplace's replacement is
    JavaScript's: $& the match, $$ a dollar, $<name> a named group (all were left as written)."""
    async with started(make_vault({"N.md": "---\nsku: a.b\n---\n"})) as vg:
        await vg.indexed()
        query = (
            'TABLE WITHOUT ID split("abc", ""), split("a1b", "(\\d)?"), replace("abc", "", "-"), '
            'regexreplace(sku, "\\.", "$&$&"), regexreplace("abc", "b", "$$"), '
            'regexreplace("abc", "(?<x>b)", "[$<x>]"), regexreplace("John Smith", "(\\w+) (\\w+)", "$2, $1") FROM "N"'
        )
        out = await vg.ok("search_dql", query=query)
        assert cells(out) == [["a", "b", "c"], ["a", "1", "b"], "a-b-c", "a..b", "a$c", "a[b]c", "Smith, John"]


async def test_regexmatch_wraps_only_a_bare_pattern_and_both_regex_tests_map_lists(
    make_vault: Callable[..., Path],
) -> None:
    """functions.ts regexmatch wraps a pattern in '^…$' only when it neither starts with '^' nor
    ends with '$', then searches: regexmatch("^Inbox", file.name) is true for 'Inbox 2024' (was
    false: the whole name had to match), "a|b" is '^a|b$'. regextest and regexmatch are vectorised
    over both arguments (regextest("\\d", list(...)) was false, not a list)."""
    async with started(make_vault({"Inbox 2024.md": "x\n"})) as vg:
        await vg.indexed()
        query = (
            'TABLE WITHOUT ID regexmatch("^Inbox", file.name), regexmatch("2024$", file.name), '
            'regexmatch("Inbox", file.name), regexmatch("I|x", file.name), regextest("\\d", list("a1", "b")), '
            'regexmatch(list("Inbox.*", "x"), file.name) FROM "Inbox 2024"'
        )
        out = await vg.ok("search_dql", query=query)
        assert cells(out) == [True, True, False, True, [True, False], [True, False]]
