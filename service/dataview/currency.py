"""Dataview's `currencyformat(number, code)`: `Intl.NumberFormat("en-US", {style: "currency",
currency: code}).format(number)` as en-US writes it, without a JavaScript engine.

The en-US symbols of the common currencies (CLDR: `$`, `€`, `£`, `¥`, `CA$`, `A$`, `CN¥`, `₹`,
`₩`, ...), any other well-formed code written before the amount with a no-break space
(`CHF 1,234.50`); the minus sign first (`-$5.00`, `-$0.00` for -0.001); the currency's own number of decimals (none for
JPY, KRW, ...; three for BHD, KWD, ...), rounded half away from zero on the number's exact value
as Intl does. A code that is not three letters has no format (null; Intl throws). Touches
nothing outside itself.
"""

from __future__ import annotations

import math
import re
from decimal import ROUND_HALF_UP, Decimal

SYMBOLS = {
    "USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "CAD": "CA$", "AUD": "A$", "CNY": "CN¥", "INR": "₹",
    "KRW": "₩", "ILS": "₪", "VND": "₫", "BRL": "R$", "NZD": "NZ$", "HKD": "HK$", "TWD": "NT$", "MXN": "MX$",
    "PHP": "₱", "XCD": "EC$",
}  # fmt: skip
NO_DECIMALS = frozenset(
    {"JPY", "KRW", "VND", "CLP", "ISK", "PYG", "UGX", "XAF", "XOF", "XPF", "KMF", "GNF", "RWF", "VUV", "DJF", "BIF"}
)
THREE_DECIMALS = frozenset({"BHD", "KWD", "OMR", "JOD", "TND", "LYD"})
_CODE = re.compile(r"[A-Za-z]{3}")


def format_currency(amount: float, code: str = "USD") -> str | None:
    if not _CODE.fullmatch(code) or not math.isfinite(amount):
        return None
    code = code.upper()
    digits = 0 if code in NO_DECIMALS else 3 if code in THREE_DECIMALS else 2
    rounded = Decimal(amount).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
    number = f"{abs(rounded):,.{digits}f}"
    symbol = SYMBOLS.get(code, code + "\u00a0")
    negative = math.copysign(1.0, amount) < 0  # Intl writes the sign of a negative amount rounded to 0
    return ("-" if negative else "") + symbol + number
