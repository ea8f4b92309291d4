"""A bundle cursor written by hand answers `invalid cursor`, never internal_error (U12, session 78).
A bundle cursor is base64 JSON the client holds: its offset was checked, its other fields were
read as they came, so `"n": "x"` (the part number), `"i": [1]` (bundle_files' position) or `"a": 5`
(bundle_folder's last path) made bundle_files / bundle_folder answer internal_error (int('x'),
'str' > 'int'). Each field is now checked to be what the tool writes in it.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started

CALLS: list[tuple[str, dict[str, Any]]] = [("bundle_files", {"paths": ["A", "B"]}), ("bundle_folder", {"folder": ""})]
BAD: list[dict[str, Any]] = [
    {"n": "x"},
    {"n": [1]},
    {"n": None},
    {"n": 1},
    {"n": True},
    {"i": "x"},
    {"i": 1.5},
    {"i": [1]},
    {"i": -1},
    {"p": None, "a": 5},
    {"p": None, "a": ["A.md"]},
    {"p": 5},
    {"p": ["A.md"]},
    {"e": {"x": 1}},
]


def decoded(cursor: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    return data


def encoded(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


@pytest.mark.parametrize(("tool", "args"), CALLS, ids=[c[0] for c in CALLS])
async def test_a_cursor_written_by_hand_is_refused(
    make_vault: Callable[..., Path], tool: str, args: dict[str, Any]
) -> None:
    root = make_vault({"A.md": "# A\n" + "line of words\n" * 3000, "B.md": "# B\n"})
    async with started(root) as vg:
        first = await vg.ok(tool, **args, max_bytes=1000)
        cursor = decoded(first["next_cursor"])
        for change in BAD:
            err = await vg.err(tool, "validation_error", **args, max_bytes=1000, cursor=encoded({**cursor, **change}))
            assert err["message"] == "invalid cursor", (change, err)
        again = await vg.ok(tool, **args, max_bytes=1000, cursor=first["next_cursor"])  # its own cursor still reads on
        assert again["entries"][0]["part"] == 2
        assert again["entries"][0]["start"] == len(first["entries"][0]["content"])
