"""Fixtures shared by the tool domains: `sv`, the search vault (tests/search_vault.py) started
and indexed — the search tools and the tag/property listings of the properties domain use it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from tests.conftest import Harness, started
from tests.search_vault import SEARCH_VAULT


@pytest.fixture
async def sv(make_vault: Callable[..., Path]) -> AsyncIterator[Harness]:
    async with started(make_vault(SEARCH_VAULT)) as harness:
        await harness.indexed()
        yield harness
