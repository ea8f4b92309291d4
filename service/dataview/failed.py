"""Rows that fail: an operator or a function given types Dataview has no implementation for
(`ops.NoImplementation`) fails the row it is evaluated on. engine.ts `executeCore` and
`executeCoreExtract` leave such a row out of the WHERE, SORT, GROUP BY, FLATTEN or the columns
(the final extraction), and fail the query when every row one operation was given fails. Touches
nothing outside itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from service.dataview.ops import NoImplementation
from service.errors import QuerySyntaxError

Row = Mapping[str, Any]


class Failed:
    """The rows of one operation whose evaluation failed (`ops.NoImplementation`): each is left
    out, and when every row it was given fails the query fails, with the first three messages
    (engine.ts executeCore and executeCoreExtract)."""

    def __init__(self, operation: str, incoming: int = 0) -> None:
        self.operation, self.incoming, self.errors = operation, incoming, 0
        self.first: list[str] = []

    def add(self, error: NoImplementation) -> None:
        self.errors += 1
        if len(self.first) < 3:
            self.first.append(error.message)

    def check(self) -> None:
        if self.errors and self.errors >= self.incoming:
            what = "final data extraction" if self.operation == "extract" else f"operation '{self.operation}'"
            raise QuerySyntaxError(
                f"Every row during {what} failed with an error; first {len(self.first)}: " + "; ".join(self.first),
                details={"reason": "every_row_failed", "operation": self.operation, "errors": self.first},
                hint="An operator or function was given values it has no meaning for (as Dataview answers); "
                "guard the expression (default(), a WHERE before it) or change it.",
            )


def evaluated(
    rows: list[Row], value_of: Callable[[Row], Any], failed: Failed, look: Callable[[], None] | None = None
) -> Iterator[tuple[Any, Row]]:
    """(value, row) of each row whose value does not fail (`Failed` checked at the end); `look`
    (the budget's clock) is called before each."""
    for row in rows:
        if look is not None:
            look()
        try:
            value = value_of(row)
        except NoImplementation as e:
            failed.add(e)
            continue
        yield value, row
    failed.check()
