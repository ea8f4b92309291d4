"""Numbers of `… by function` expressions as JavaScript holds them: doubles. Python's integers
grow without bound (an expression squaring a number ten times built a 5,000-digit integer, whose
text Python refuses: internal_error), so an integer past 2**53 becomes a float, as in JavaScript,
where it overflows to Infinity; and such a number reads back as JavaScript writes it."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Context, Decimal

SAFE = 2**53  # the largest integer a double holds exactly


def js_number(value: int | float) -> int | float:
    """`value` as a double holds it (an integer past 2**53 becomes a float)."""
    return float(value) if isinstance(value, int) and not -SAFE <= value <= SAFE else value


def literal(text: str) -> int | float:
    """A number as written in an expression (`\\d+(\\.\\d+)?`): past 2**53 a float, Infinity past doubles."""
    return js_number(int(text)) if "." not in text and len(text) <= 16 else float(text)


def number_text(value: float) -> str:
    """`String(value)` for a float: NaN, Infinity, integers up to 1e21 without a point, else Python's
    shortest repr (the same digits as JavaScript's, e.g. 1e+21, 1.5e+300)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return repr(value)


def to_integer(value: int | float) -> int:
    """JavaScript's ToIntegerOrInfinity for an index or a length: NaN is 0, infinities are clamped."""
    if isinstance(value, float) and math.isnan(value):
        return 0
    return int(max(-SAFE, min(SAFE, value)))


def to_fixed(value: int | float, digits: int) -> str:
    """`value.toFixed(digits)`: ties away from zero; NaN, Infinity and 1e21 or more as `String(value)`."""
    if not math.isfinite(value) or abs(value) >= 1e21:
        return number_text(float(value))
    exact = Decimal(value).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP, context=Context(prec=200))
    return f"{exact:.{digits}f}"
