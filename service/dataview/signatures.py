"""The argument types Dataview's functions take (expression/functions.ts, 0.5.70): a call whose
arguments match none of a function's variants fails the row it is evaluated on ("No
implementation of 'length' found for arguments: number"), as an operator given types it has no
implementation for does (`ops.NoImplementation`). Read from each `FunctionBuilder`'s `add1`,
`add2`, `add3` and `vectorize` there: a list in a vectorised position maps the check over its
items, the lists zipped and cut to the shortest, as the call itself is. Functions not listed
here (constructors, `string`, `typeof`, `default`, `choice`, `contains`, `join`, `sum`, `min`
... each with a variant of any type, or written by hand) are not checked. `wrong` also serves
`validate_dql`, for a call whose arguments are all literals. Touches nothing outside itself.
"""

from __future__ import annotations

from typing import Any

from service.dataview.ops import NoImplementation
from service.dataview.values import type_of

Variants = tuple[tuple[str, ...], ...]

_ONE_STRING: Variants = (("string",), ("null",))
_ONE_NUMBER: Variants = (("number",), ("null",))
_ONE_DATE: Variants = (("date",), ("null",))
_TWO_STRINGS: Variants = (("string", "string"), ("null", "*"), ("*", "null"))
_PAD: Variants = (
    ("string", "number"), ("string", "number", "string"), ("null", "*"), ("*", "null"),
    ("null", "*", "*"), ("*", "null", "*"), ("*", "*", "null"),
)  # fmt: skip
_SUBSTRING: Variants = (
    ("string", "number"), ("string", "number", "number"), ("null", "*"), ("*", "null"),
    ("null", "*", "*"), ("*", "null", "*"), ("*", "*", "null"),
)  # fmt: skip
_THREE_STRINGS: Variants = (("string", "string", "string"), ("null", "*", "*"), ("*", "null", "*"), ("*", "*", "null"))
_BY: Variants = (("array", "function"), ("null", "function"))

# name: (variants, {number of arguments: vectorised positions})
SIGNATURES: dict[str, tuple[Variants, dict[int, tuple[int, ...]]]] = {
    "length": ((("array",), ("object",), ("string",), ("null",)), {}),
    "lower": (_ONE_STRING, {1: (0,)}),
    "upper": (_ONE_STRING, {1: (0,)}),
    "trunc": (_ONE_NUMBER, {1: (0,)}),
    "floor": (_ONE_NUMBER, {1: (0,)}),
    "ceil": (_ONE_NUMBER, {1: (0,)}),
    "round": ((("number",), ("null",), ("number", "number"), ("number", "null"), ("null", "*")), {1: (0,), 2: (0,)}),
    "number": ((("number",), ("string",), ("null",)), {1: (0,)}),
    "striptime": (_ONE_DATE, {1: (0,)}),
    "localtime": (_ONE_DATE, {1: (0,)}),
    "dateformat": ((("date", "string"), ("null", "string")), {2: (0,)}),
    "durationformat": ((("duration", "string"), ("null", "string")), {2: (0,)}),
    "dur": ((("string",), ("duration",), ("null",)), {1: (0,)}),
    "startswith": (_TWO_STRINGS, {2: (0, 1)}),
    "endswith": (_TWO_STRINGS, {2: (0, 1)}),
    "containsword": (_TWO_STRINGS, {2: (0, 1)}),
    "regextest": (_TWO_STRINGS, {2: (0, 1)}),
    "regexmatch": (_TWO_STRINGS, {2: (0, 1)}),
    "regexreplace": (_THREE_STRINGS, {3: (0, 1, 2)}),
    "replace": (_THREE_STRINGS, {3: (0, 1, 2)}),
    "split": (
        (("string", "string"), ("string", "string", "number"), ("null", "*"), ("*", "null"))
        + (("*", "*", "null"), ("*", "null", "*"), ("null", "*", "*")),
        {},
    ),
    "padleft": (_PAD, {2: (0, 1), 3: (0, 1, 2)}),
    "padright": (_PAD, {2: (0, 1), 3: (0, 1, 2)}),
    "substring": (_SUBSTRING, {2: (0, 1), 3: (0, 1, 2)}),
    "truncate": (
        (("string", "number", "string"), ("string", "number")) + _SUBSTRING[2:],
        {2: (0, 1), 3: (0, 1, 2)},
    ),
    "minby": (_BY, {}),
    "maxby": (_BY, {}),
    "filter": ((("array", "function"), ("null", "*")), {}),
    "map": ((("array", "function"), ("null", "*")), {}),
    "unique": ((("array",), ("null",)), {}),
    "flat": ((("array",), ("array", "number"), ("null",)), {}),
    "slice": ((("array",), ("array", "number"), ("array", "number", "number"), ("null",)), {}),
    "firstvalue": ((("array",), ("null",)), {}),
    "meta": ((("link",),), {}),
    "date": (
        (("string",), ("date",), ("link",), ("string", "string"), ("null", "string"), ("null",)),
        {1: (0,)},
    ),
    "link": (
        (("string",), ("link",), ("null",), ("string", "string"), ("string", "string", "boolean"))
        + (("link", "string"), ("null", "*"), ("*", "null")),
        {1: (0,), 2: (0, 1)},
    ),
    "embed": ((("link",), ("link", "boolean"), ("null",), ("null", "*"), ("*", "null")), {1: (0,), 2: (0, 1)}),
    "elink": ((("string", "string"), ("string", "null"), ("null", "*"), ("string",), ("null",)), {1: (0,), 2: (0,)}),
    "hash": ((("string", "number"), ("string", "string"), ("string", "string", "number")), {}),
    "currencyformat": ((("number", "string"), ("null", "string"), ("number",), ("null",)), {2: (0,)}),
    "reduce": ((("array", "string"), ("array", "function"), ("null", "*"), ("*", "null")), {2: (1,)}),
}


# the variants without `*`, for the common case (no variant listed here has a list where it is
# vectorised, so an exact match is the answer Dataview's vectorising first would give)
_EXACT = {name: frozenset(v for v in variants if "*" not in v) for name, (variants, _) in SIGNATURES.items()}


def wrong(name: str, args: list[Any]) -> str | None:
    """Dataview's message when `name` has no variant for `args` (None when it has one, or when
    `name` is not checked here)."""
    signature = SIGNATURES.get(name)
    if signature is None:
        return None
    types = tuple(map(type_of, args))
    if types in _EXACT[name]:
        return None
    variants, vectorised = signature
    spots = [i for i in vectorised.get(len(args), ()) if types[i] == "array"]
    if spots:
        count = min(len(args[i]) for i in spots)
        for k in range(count):
            message = wrong(name, [a[k] if i in spots else a for i, a in enumerate(args)])
            if message is not None:
                return message
        return None
    for variant in variants:
        if len(variant) == len(types) and all(v in ("*", t) for v, t in zip(variant, types, strict=True)):
            return None
    return f"No implementation of '{name}' found for arguments: {', '.join(types)}"


def check(name: str, args: list[Any]) -> None:
    """Raise `NoImplementation` when `name` has no variant for `args`."""
    message = wrong(name, args)
    if message is not None:
        raise NoImplementation(message)
