"""Fixtures of the Obsidian-file tools' tests."""

from __future__ import annotations

from typing import Any

import pytest

from service.obsidian import bookmarks as bm


@pytest.fixture
def key_hashes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many bookmark ids were hashed (`bookmarks.key_of` calls) since the count was last set."""
    hashed = [0]
    real = bm.key_of

    def counted(item: dict[str, Any]) -> str:
        hashed[0] += 1
        return real(item)

    monkeypatch.setattr(bm, "key_of", counted)
    return hashed


@pytest.fixture
def walks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times the bookmarks file was walked (`bookmarks.walk` calls): one per version of it."""
    count = [0]
    real = bm.walk

    def counted(*args: Any, **kwargs: Any) -> Any:
        count[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(bm, "walk", counted)
    return count
