"""bulk_create_notes finds what would refuse the call before it asks a human (review R2 s63 F9):
two addresses of one note (`Foo` and `Plugins/Foo`, `A` and `A.md`), two new case twins, a case
twin of a file there, an existing note without `overwrite`. Before, a call that needed a
confirmation (an overwrite without etag, more than `notes.bulk_confirm_above` notes) answered
elicit_required with a preview listing the note once, and only the confirmed call was refused."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import e2e, started

VAULT = {"Plugins/Foo.md": "# Foo\n\nhuman text\n", "Home.md": "home\n", "B/Twin.md": "twin\n"}

REFUSED: dict[str, tuple[dict[str, Any], str, dict[str, Any]]] = {
    "bare-name-and-path": (
        {"notes": [{"path": "Foo", "content": "1\n"}, {"path": "Plugins/Foo", "content": "2\n"}], "overwrite": True},
        "validation_error",
        {"field": "notes", "path": "Plugins/Foo.md"},
    ),
    "with-and-without-md": (
        {"notes": [{"path": "Home", "content": "one\n"}, {"path": "Home.md", "content": "two\n"}], "overwrite": True},
        "validation_error",
        {"field": "notes", "path": "Home.md"},
    ),
    "two-new-twins": (
        {"notes": [{"path": "Home", "content": "x\n"}, {"path": "N/New"}, {"path": "N/new"}], "overwrite": True},
        "already_exists",
        {"path": "N/New.md", "new_path": "N/new.md"},
    ),
    "twin-of-a-folder-there": (
        {"notes": [{"path": "Home", "content": "x\n"}, {"path": "b/New"}], "overwrite": True},
        "already_exists",
        {"path": "B", "new_path": "b/New.md"},
    ),
    "exists-above-the-count": (
        {"notes": [{"path": "Home"}, {"path": "N/a"}, {"path": "N/b"}]},
        "already_exists",
        {"path": "Home.md"},
    ),
}


@pytest.mark.parametrize("case", REFUSED)
async def test_a_call_that_cannot_run_is_refused_before_it_asks(make_vault: Callable[..., Path], case: str) -> None:
    args, code, details = REFUSED[case]
    root = make_vault(VAULT)
    async with started(root, notes={"bulk_confirm_above": 2}) as vg:
        before = vg.snapshot()
        error = await vg.err("bulk_create_notes", code, **args)  # unconfirmed: no elicit_required
        assert error["details"] == details, error
        assert vg.snapshot() == before


async def test_a_call_that_can_run_still_asks(make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    async with started(root, notes={"bulk_confirm_above": 2}) as vg:
        notes = [{"path": "Foo", "content": "one\n"}, {"path": "N/New"}, {"path": "B/Other"}]
        asked = await vg.err("bulk_create_notes", "elicit_required", notes=notes, overwrite=True)
        assert "Plugins/Foo.md" in str(asked)
        await vg.confirmed("bulk_create_notes", notes=notes, overwrite=True)
        assert vg.read("Plugins/Foo.md") == "one\n" and vg.read("N/New.md") == ""


async def test_one_note_named_twice_is_refused_unasked_over_http(make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    async with e2e(root) as (url, vg), Client(url) as client:
        before = vg.snapshot()
        args = {"notes": [{"path": "Foo", "content": "one\n"}, {"path": "Plugins/Foo", "content": "two\n"}]}
        result = await client.call_tool("bulk_create_notes", {**args, "overwrite": True})
        assert result.is_error and result.structured_content is not None
        error = result.structured_content["error"]
        assert error["code"] == "validation_error" and "appears twice" in error["message"], error
        assert vg.snapshot() == before
