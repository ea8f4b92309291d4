"""Session 80 (D1): Dataview's hash() is cyrb53 (util/hash.ts; functions.ts hash(seed, variant),
hash(seed, text), hash(seed, text, variant)); the server answered a blake2b number of its own
(documented as "not Dataview's exact number"), so a `SORT hash(...)` shuffle differed from the
owner's. The expected numbers are cyrb53's published test vectors ("a", "b", "revenge",
"revenue" with seed 0)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started

CASES: list[tuple[str, Any]] = [
    ('hash("a", 0)', 7929297801672961),
    ('hash("", "b")', 8684336938537663),
    ('hash("re", "venge")', 4051478007546757),
    ('hash("rev", "enue", 0)', 8309097637345594),
    ('hash("a", 1) != hash("a", 0)', True),
    ('hash("a", 1) = hash("a", 1.5)', True),
    # hash("a"), hash(1, 2), hash("a", "b", "c") were null here; functions.ts has no such variant:
    # each fails every row (session 81), `test_arguments_of_no_variant`
]


async def test_hash_is_the_plugins_number(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"N.md": "x:: 1\n"})) as vg:
        await vg.indexed()
        query = "TABLE WITHOUT ID " + ", ".join(expr for expr, _ in CASES) + ' FROM "N"'
        out = await vg.ok("search_dql", query=query)
        got = [cell["value"] for cell in out["rows"][0]["cells"]]
        assert got == [want for _, want in CASES]
        shuffled = await vg.ok("search_dql", query='LIST FROM "N" SORT hash(file.name, "s")')
        assert [r["path"] for r in shuffled["rows"]] == ["N.md"]


async def test_arguments_of_no_variant(make_vault: Callable[..., Path]) -> None:
    """functions.ts hash has (string, number), (string, string), (string, string, number) only:
    other arguments throw "No implementation of 'hash' found for arguments: ..." (session 81)."""
    async with started(make_vault({"N.md": "x:: 1\n"})) as vg:
        await vg.indexed()
        for expr, types in [
            ('hash("a")', "string"),
            ("hash(1, 2)", "number, number"),
            ('hash("a", "b", "c")', "string, string, string"),
        ]:
            err = await vg.err("search_dql", "query_syntax_error", query=f'TABLE WITHOUT ID {expr} FROM "N"')
            assert err["message"] == f"No implementation of 'hash' found for arguments: {types}", err
