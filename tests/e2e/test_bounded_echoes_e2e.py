"""An error about what the caller gave echoes it bounded, end to end: a real uvicorn server and the
SDK's Streamable HTTP client in both protocol eras."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from mcp import Client

from service.errors import ELLIPSIS
from tests.conftest import e2e
from tests.e2e.calls import error as _error

VAULT: dict[str, str | bytes] = {"Plan.md": "# Plan\n\n## Goals\n\nShip it.\n"}


async def test_a_huge_heading_is_echoed_bounded(make_vault: Callable[..., Path], mode: str) -> None:
    big = "x" * 100_000
    async with e2e(make_vault(VAULT), index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        # Was one 200,339-character answer: the heading whole in the message and in details.
        missed = await _error(c, "read_note", path="Plan", heading=big)
        assert missed["code"] == "validation_error" and missed["details"]["reason"] == "not_found"
        assert len(json.dumps(missed)) < 10_000 and ELLIPSIS in missed["message"]
        assert missed["details"]["headings"] == ["Plan", "Goals"]
