"""Session 80 (D1): currencyformat wrote `$-5.00` for a negative amount (Intl en-US: `-$5.00`),
two decimals for every currency (JPY has none: `¥1,235`; KWD three), `0.125` as `$0.12` (Intl
rounds half away from zero: `$0.13`), and a number for a code Intl refuses. Dataview's
functions.ts currencyformat is `Intl.NumberFormat(locale, {style: "currency", currency})`, with
`.vectorize(2, [0])`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started

CASES: list[tuple[str, Any]] = [
    ("currencyformat(1234.5)", "$1,234.50"),
    ("currencyformat(-5)", "-$5.00"),
    ('currencyformat(1234.5, "EUR")', "€1,234.50"),
    ('currencyformat(1234.5, "jpy")', "¥1,235"),
    ('currencyformat(1234.5678, "KWD")', "KWD\u00a01,234.568"),
    ('currencyformat(12, "CHF")', "CHF\u00a012.00"),
    ('currencyformat(3, "CAD")', "CA$3.00"),
    ("currencyformat(0.125)", "$0.13"),
    ("currencyformat(1.005)", "$1.00"),
    ('currencyformat(12, "dollars")', None),
    ('currencyformat([1, -2], "USD")', ["$1.00", "-$2.00"]),
]


async def test_currencyformat_writes_intl_en_us(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"N.md": "x:: 1\n"})) as vg:
        await vg.indexed()
        query = "TABLE WITHOUT ID " + ", ".join(expr for expr, _ in CASES) + ' FROM "N"'
        out = await vg.ok("search_dql", query=query)
        got = [cell["value"] for cell in out["rows"][0]["cells"]]
        wrong = [(expr, value, want) for (expr, want), value in zip(CASES, got, strict=True) if value != want]
        assert not wrong, wrong
