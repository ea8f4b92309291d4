"""Session 78 (V2): field keys as Dataview names them (util/normalize.ts canonicalizeVarName;
markdown-file.ts keeps a frontmatter key as written and adds its canonical key), through the
dispatch chain. The canonical key keeps runs of [0-9\\p{Letter}_-] in lower case and emoji, turns
each run of white space into one '-', drops every other character (combining marks, digits other
than 0-9) and trims nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started


def cells(out: dict[str, Any]) -> list[Any]:
    return [c["value"] for c in out["rows"][0]["cells"]]


async def test_canonical_keys_keep_underscores_and_drop_marks_and_other_digits(
    make_vault: Callable[..., Path],
) -> None:
    """`due_date` and `duedate` are two fields (the underscore was dropped: both were `duedate`,
    the last one won); `x²::` is `x` and a decomposed `Cafe\\u0301::` is `cafe` (a mark and a
    superscript digit were kept); a YAML key 'Key ' is also `key-` (it was trimmed to `key`)."""
    # bracketed: Dataview's whole-line `Key:: value` takes no key with a mark or a superscript
    # digit (inline-field.ts FULL_LINE_KEY_PARSER; session 79), `[key:: value]` takes any key
    note = '---\ndue_date: 2024-05-01\nduedate: 2030-01-01\n"Key ": 3\n---\n[x²:: 4]\n[Cafe\u0301:: open]\n'
    async with started(make_vault({"K.md": note})) as vg:
        await vg.indexed()
        query = 'TABLE WITHOUT ID due_date, duedate, row["key-"], x, cafe, row["x²"] FROM "K"'
        out = await vg.ok("search_dql", query=query)
        assert cells(out) == ["2024-05-01", "2030-01-01", 3, 4, "open", 4]
        rows = await vg.ok("search_dql", query="LIST WHERE due_date < date(2025-01-01)")
        assert [r["path"] for r in rows["rows"]] == ["K.md"]


async def test_an_emoji_key_keeps_its_emoji(make_vault: Callable[..., Path]) -> None:
    """An emoji stays in the canonical key as written (emoji-regex, Dataview's): '🧑‍💻 Dev Lead'
    is '🧑‍💻-dev-lead', 'Статус' is 'статус'."""
    # bracketed: a whole line's key starts at its first letter (FULL_LINE_KEY_PARSER skips the emoji)
    note = "[🧑\u200d💻 Dev Lead:: Ana]\nСтатус:: open\n"
    async with started(make_vault({"E.md": note})) as vg:
        await vg.indexed()
        out = await vg.ok("search_dql", query='TABLE WITHOUT ID row["🧑\u200d💻-dev-lead"], статус FROM "E"')
        assert cells(out) == ["Ana", "open"]
