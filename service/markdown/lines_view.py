"""A long text's lines, and runs of line numbers, without a Python object for each.

`Lines(text)` reads as `text.split("\\n")` (the same length, the same line at each index, its
slices equal to the list's) from one array of offsets, eight bytes a line: a line is cut from the
text when it is asked for. `text.split` made an object for every line, ~120 bytes for a line of
70 characters, and a diff of two versions of a 50 MB note held both (~170 MB) for an answer
listing a few hundred lines. Slices are views of the same text; two are compared by the text they
cover, piece by piece.

`Runs` holds runs of line numbers, `(i1, i2, j1, j2)` as `service.markdown.line_diff` takes them,
four eight-byte integers each (a tuple of four was ~180 bytes).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from typing import overload

_PIECE = 1 << 20  # characters compared at once when two views are compared


class Lines(Sequence[str]):
    """`text.split("\\n")`, each line cut from `text` when asked for (module doc)."""

    __slots__ = ("_hi", "_lo", "_starts", "_text")

    def __init__(self, text: str, _starts: array[int] | None = None, _lo: int = 0, _hi: int | None = None) -> None:
        if _starts is None:  # where each line starts, and one past the end (as if a line end followed)
            _starts = array("q", [0])
            at = text.find("\n")
            while at >= 0:
                _starts.append(at + 1)
                at = text.find("\n", at + 1)
            _starts.append(len(text) + 1)
        self._text, self._starts = text, _starts
        self._lo, self._hi = _lo, len(_starts) - 1 if _hi is None else _hi

    def __len__(self) -> int:
        return self._hi - self._lo

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Lines: ...
    def __getitem__(self, index: int | slice) -> str | Lines:
        if isinstance(index, int):
            k = self._lo + index if index >= 0 else self._hi + index
            if not self._lo <= k < self._hi:
                raise IndexError("line index out of range")
            return self._text[self._starts[k] : self._starts[k + 1] - 1]
        lo, hi, step = index.indices(self._hi - self._lo)
        if step != 1:
            raise ValueError("a view of lines takes slices of step 1")
        return Lines(self._text, self._starts, self._lo + lo, self._lo + max(hi, lo))

    def __iter__(self) -> Iterator[str]:
        text, starts = self._text, self._starts
        for k in range(self._lo, self._hi):
            yield text[starts[k] : starts[k + 1] - 1]

    def _span(self) -> tuple[int, int]:
        """The offsets of the text the view covers (its lines and the line ends between them)."""
        if self._lo == self._hi:
            return 0, 0
        return self._starts[self._lo], self._starts[self._hi] - 1

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Lines):
            if len(self) != len(other):
                return False
            (a, a_end), (b, b_end) = self._span(), other._span()
            if a_end - a != b_end - b:
                return False
            while a < a_end:  # the same lines: the same text between the same number of line ends
                size = min(_PIECE, a_end - a)
                if self._text[a : a + size] != other._text[b : b + size]:
                    return False
                a, b = a + size, b + size
            return True
        if isinstance(other, list):
            return len(self) == len(other) and all(x == y for x, y in zip(self, other, strict=True))
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None  # type: ignore[assignment]  # compared by its lines, as a list


class Runs(Sequence[tuple[int, int, int, int]]):
    """Runs `(i1, i2, j1, j2)` in order, four integers each in one array (module doc)."""

    __slots__ = ("_flat",)

    def __init__(self) -> None:
        self._flat = array("q")

    def append(self, run: tuple[int, int, int, int]) -> None:
        self._flat.extend(run)

    def pop(self) -> tuple[int, int, int, int]:
        run = self[-1]
        del self._flat[-4:]
        return run

    def __len__(self) -> int:
        return len(self._flat) // 4

    @overload
    def __getitem__(self, index: int) -> tuple[int, int, int, int]: ...
    @overload
    def __getitem__(self, index: slice) -> list[tuple[int, int, int, int]]: ...
    def __getitem__(self, index: int | slice) -> tuple[int, int, int, int] | list[tuple[int, int, int, int]]:
        if isinstance(index, slice):
            return [self[k] for k in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("run index out of range")
        f, at = self._flat, 4 * index
        return f[at], f[at + 1], f[at + 2], f[at + 3]

    def __iter__(self) -> Iterator[tuple[int, int, int, int]]:
        f = self._flat
        for at in range(0, len(f), 4):
            yield f[at], f[at + 1], f[at + 2], f[at + 3]
