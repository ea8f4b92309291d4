"""Dataview's full-line key parser (inline-field.ts FULL_LINE_KEY_PARSER): each answer below is
what parsimmon 1.18.1 with emoji-regex 10.3.0 gives under node (session 79)."""

from __future__ import annotations

import pytest

from service.dataview.keys import full_line_key

CASES = [
    ("Key", "Key"),
    ("e.g.", None),
    ("Mr. Smith", None),
    ("The C++ std", None),
    ("**Bold** Key", None),
    ("**Status**", "Status"),
    ("x²", None),  # a superscript digit is no letter
    ("> quoted", "quoted"),
    ("Cafe\u0301", None),  # nor a combining mark
    ("🧑\u200d💻 Dev Lead", "Dev Lead"),  # leading emoji skipped with the marks
    ("Due Date", "Due Date"),
    ("☀ Weather", "Weather"),
    ("Weather ☀️", "Weather ☀️"),  # an emoji of the first plane, with its selector
    ("Mood 🎯", None),  # under the `u` flag the astral emoji of emoji-regex match nothing
    ("__Key__", "__Key__"),
    ("~~old~~", "old"),
    ("a/b-c d", "a/b-c d"),
    ("日本語", "日本語"),
    ("=key=", None),
]


@pytest.mark.parametrize(("key", "expected"), CASES)
def test_full_line_key_as_dataview_parses_it(key: str, expected: str | None) -> None:
    assert full_line_key(key) == expected
