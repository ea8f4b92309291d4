"""The companion's lists (Templater's templates, QuickAdd's choices, make.md's spaces) with an entry
in another shape than routes.ts writes ({path, name}, {id, name, type}, {path, name, type}, string
values): each entry that was not an object with those strings was left out unsaid, so
makemd_list_spaces answered an empty list, and trigger_quickadd called a choice the answer garbled
`choice_not_found` (a validation error of the caller's). Now it is `plugin_incompatible`
(`bad_answer`), as a command list in another shape is (B2 s84). Through the dispatch chain against
the stand-in."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from tests.tools.bridges.standin import Obsidian
from tests.tools.bridges.test_bridge_tools import api_key, bridged

__all__ = ["api_key"]  # the autouse fixture that sets the API key


class Garbled(Obsidian):
    """Answers each companion list route with `answer`."""

    answer: dict[str, Any] = {}  # noqa: RUF012 - set per case

    async def companion_route(self, request: Request) -> Response:
        if (refused := await self._seen(request)) is not None:
            return refused
        if request.url.path.endswith("/quickadd/execute/"):
            self.quickadd_runs.append(await request.json())
            return JSONResponse({"executed": True})
        return JSONResponse(self.answer)


CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("makemd_list_spaces", {}, {"spaces": [1]}),
    ("makemd_query", {"text": "x"}, {"spaces": [{"path": 5, "name": "x", "type": "folder"}], "truncated": False}),
    ("list_templater_templates", {}, {"folder": "Templates", "templates": [{"path": "Templates/Daily.md"}]}),
    ("list_quickadd_actions", {}, {"choices": [None]}),
    ("trigger_quickadd", {"choice": "Log"}, {"choices": [{"id": "c1", "name": ["Log"], "type": "Capture"}]}),
]


async def test_an_entry_in_another_shape_is_plugin_incompatible_not_left_out(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    obsidian = Garbled()
    async with bridged(make_vault, tmp_path, obsidian) as (vg, _):
        for tool, args, answer in CASES:
            obsidian.answer = answer
            err = await vg.err(tool, "plugin_incompatible", **args)
            assert err["details"]["reason"] == "bad_answer", (tool, err)
            assert err["details"]["plugin"] == "vaultgate-companion" and err["hint"], (tool, err)
        # a whole answer in the right shape still reads
        obsidian.answer = {"spaces": [{"path": "Projects", "name": "Projects", "type": "folder"}]}
        assert [s["path"] for s in (await vg.ok("makemd_list_spaces"))["items"]] == ["Projects"]
    assert obsidian.quickadd_runs == []
