"""E2E (both eras, SDK client over real HTTP): suggest_links finds a note named in a script
written without spaces inside a sentence (tests/tools/graph/test_unspaced_mentions.py), and
validate_plan refuses up front a move of a name a folder and the note beside it share
(tests/tools/sessions/test_plan_folder_or_note_refusals.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.tools.graph import test_unspaced_mentions as unspaced
from tests.tools.sessions import test_plan_folder_or_note_refusals as plans


async def test_a_name_without_spaces_is_suggested(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(unspaced.FILES)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            out = await ok(client, "suggest_links", {"path": "Src"})
            assert [i["mention"] for i in out["items"]] == ["東京", "東京タワー", "ภาษาไทย"], out["items"]


async def test_a_plan_moving_a_folder_or_note_name_is_refused_up_front(
    make_vault: Callable[..., Path], mode: str
) -> None:
    async with e2e(make_vault(plans.VAULT)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            step = {"id": "m", "tool": "rename_note", "args": {"path": "Projects", "new_path": "Work"}}
            checked = await ok(client, "validate_plan", {"plan": {"goal": "tidy", "steps": [step]}})
            assert not checked["valid"] and [p["code"] for p in checked["problems"]] == ["ambiguous_note"]
