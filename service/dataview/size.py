"""The size of a page of Dataview results as it is rendered, against the response byte limit.

A page of `limit` rows of a TASK ... GROUP BY is `limit` groups, and a group renders every task
in it: over 10^5 notes `TASK GROUP BY completed` made two groups of ~200,000 tasks each, ~1.3 GB
of rendered tasks before the response governor measured the answer and refused it (`overflow`).
`Answer` counts the compact JSON bytes of what is rendered, a group's tasks one by one
(`counted_task`), and raises `overflow` as soon as the count passes the limit: the answer would
have been longer still (the governor measures the same encoding, with the links added after, and
the text copy of the answer beside it), so nothing that would fit is refused, and no more than
the limit's worth of tasks is ever built. The suggested page size counts the text copy too (as
long as the structured answer at most: it leaves the null fields out).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

from pydantic_core import to_json

from service.errors import Overflow

T = TypeVar("T")


ENVELOPE = 512  # bytes of the answer around its rows (type, columns, total, cursor), kept for them
URL_KEY = len(',"obsidian_url":')


class Answer:
    """Bytes rendered so far in one page (whole rows, then the tasks of the row being rendered).
    `url(path)` is the `obsidian_url` the tool adds to each row and task with a path."""

    def __init__(self, max_bytes: int | None, url: Callable[[str], str] | None = None) -> None:
        self.max_bytes = max_bytes
        self.url = url
        self.rows = 0  # rows rendered whole
        self.fit = 0  # of those, how many fit with the answer's envelope (the suggested limit)
        self.done = 0  # their bytes
        self.bytes = 0  # with the tasks of the row under way

    def add(self, row: T) -> T:
        """A whole row: its exact size replaces what its tasks counted while it was rendered."""
        if self.max_bytes is not None:
            self.bytes = self.done = self.done + self._size(row)
            self._check()
            if 2 * self.done + ENVELOPE <= self.max_bytes:  # the answer is sent as text too
                self.fit += 1
        self.rows += 1
        return row

    def task(self, task: T) -> T:
        if self.max_bytes is not None:
            self.bytes += self._size(task)
            self._check()
        return task

    def _size(self, item: Any) -> int:
        n = len(to_json(item)) + 1
        if self.url is not None and isinstance(item, dict):
            path = item.get("path")
            if isinstance(path, str):
                n += URL_KEY + len(to_json(self.url(path)))
            for task in item.get("tasks", ()):  # the group's tasks' links (counted by `task` as it went)
                if isinstance(task, dict) and isinstance(path := task.get("path"), str):
                    n += URL_KEY + len(to_json(self.url(path)))
        return n

    def _check(self) -> None:
        if self.max_bytes is None or self.bytes <= self.max_bytes:
            return
        details: dict[str, Any] = {"bytes": self.bytes, "limit": self.max_bytes, "tool": "search_dql"}
        if self.fit:
            details["suggested_limit"] = self.fit
            hint = f"Retry with limit={self.fit} (or less) and follow next_cursor for the rest."
        else:
            hint = (
                "One row (a group's tasks) is longer than the response limit: narrow the query "
                "(FROM, WHERE) or group by a finer key."
            )
        raise Overflow(
            f"result of more than {self.max_bytes} bytes exceeds the {self.max_bytes}-byte limit",
            details=details,
            hint=hint,
        )

    @contextmanager
    def active(self) -> Iterator[Answer]:
        token = _CURRENT.set(self)
        try:
            yield self
        finally:
            _CURRENT.reset(token)


_CURRENT: ContextVar[Answer | None] = ContextVar("vaultgate_dql_answer", default=None)


def counted_task(task: T) -> T:
    """A rendered task of a group, counted toward the page being rendered (if any)."""
    answer = _CURRENT.get()
    return answer.task(task) if answer is not None else task
