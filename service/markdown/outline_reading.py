"""A note's outline read line by line (`OutlineReading`), and the few readings kept for the next
pages of an outline listed by pages (`KeptReadings`).

`get_outline` lists a long note's headings and block ids by pages; a next page of an unchanged
note reuses the reading its first page made rather than reading every line again. The readings
are kept by (vault, path, etag), the last used first out, bounded by count and by what one holds
(its headings and block ids). One `KeptReadings` lives as long as the application: built in
`service.app`, reached as `Services.outlines`.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from service.markdown.outline import Outliner


@dataclass(slots=True)
class OutlineReading:
    """The note's lines fed in order (`take`): an `Outliner` and, at each heading line and at the
    end, the last non-empty line before it (where `read_note` ends a section)."""

    outliner: Outliner = field(default_factory=Outliner)
    filled: int = -1  # the last non-empty line so far
    filled_before: dict[int, int] = field(default_factory=dict)
    lines: int = 0
    last: str = ""

    def take(self, no: int, line: str, body_line: int) -> None:
        outliner = self.outliner
        raw = line.rstrip("\r")  # a CRLF note's line, as `outline.outline` feeds it: `^id\r` is a block id
        if no >= body_line:
            seen = len(outliner.headings)
            outliner.feed(no, raw)
            if len(outliner.headings) > seen:
                self.filled_before[no] = self.filled
        outliner.paragraph(no, raw)
        if line and line != "\r":  # a CRLF note's blank line is blank too (`sections.section_text`)
            self.filled = no
        self.lines, self.last = no + 1, line

    def total_lines(self) -> int:
        """The note's lines as `read_note` counts them (a line end closing the last line adds none)."""
        return self.lines - 1 if self.lines > 1 and not self.last else max(self.lines, 1)

    def items(self) -> int:
        """What the reading holds: its headings and block ids."""
        return len(self.outliner.headings) + len(self.outliner.found)


class KeptReadings:
    """The readings of the last `max_readings` notes listed by pages, by (vault, path, etag); a
    reading holding more than `max_items` headings and block ids is not kept."""

    def __init__(self, max_readings: int = 4, max_items: int = 200_000) -> None:
        self.max_readings = max_readings
        self.max_items = max_items
        self._kept: OrderedDict[tuple[str, str, str], OutlineReading] = OrderedDict()

    def get(self, vault: str, rel: str, etag: str) -> OutlineReading | None:
        key = (vault, rel, etag)
        if (reading := self._kept.get(key)) is not None:
            self._kept.move_to_end(key)
        return reading

    def keep(self, vault: str, rel: str, etag: str, reading: OutlineReading) -> None:
        if reading.items() <= self.max_items:
            self._kept[(vault, rel, etag)] = reading
            while len(self._kept) > self.max_readings:
                self._kept.popitem(last=False)

    def __len__(self) -> int:
        return len(self._kept)
