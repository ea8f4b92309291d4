"""Fixtures shared by the stdio output tests."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture
def pipe() -> Iterator[tuple[int, Any]]:
    """A real pipe: its read descriptor, and its write end as an unbuffered file (as stdout)."""
    r, w = os.pipe()
    out = os.fdopen(w, "wb", buffering=0)
    try:
        yield r, out
    finally:
        out.close()
        os.close(r)
