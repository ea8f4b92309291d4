"""Over HTTP with the SDK client, both protocol eras (tests/tools/sessions/test_plan_names_an_alias_it_gave.py
through the dispatch chain): a plan that makes an entity, renames its note, gives it an alias and
then adds to it and relates it by that alias is valid, its confirmation lists exactly the file the
run changes, and undo_last_plan puts the vault back. Before (U10 s94), validate_plan and
execute_plan refused it: no memory entity at Memory/ZP.md."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e, snapshot
from tests.e2e.calls import error, ok
from tests.e2e.test_plan_previews_e2e import _changed, _token
from tests.tools.sessions.test_plan_names_an_alias_it_gave import ADD, HOME, RELATE, plan


async def test_a_plan_naming_an_alias_it_gave_runs_as_previewed(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(HOME)) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        start = snapshot(h.root)
        steps = plan(ADD, RELATE)
        checked = await ok(c, "validate_plan", plan=steps)
        assert checked["valid"], checked["problems"]
        ask = await error(c, "execute_plan", plan=steps, effects_hash=checked["effects_hash"])
        assert ask["code"] == "elicit_required" and ask["details"]["files"] == ["Memory/Zoe Park.md"], ask
        token = await _token(h, ask)
        run = await ok(c, "execute_plan", plan=steps, effects_hash=checked["effects_hash"], elicit_token=token)
        assert run["status"] == "done", run
        assert _changed(start, snapshot(h.root)) == {"Memory/Zoe Park.md"}
        [zoe] = (await ok(c, "open_nodes", names=["ZP"]))["entities"]
        assert [o["text"] for o in zoe["observations"]] == ["Draws maps", "Lives in Oslo"], zoe
        asked = await error(c, "undo_last_plan")
        await ok(c, "undo_last_plan", elicit_token=await _token(h, asked))
        assert _changed(start, snapshot(h.root)) == set()
