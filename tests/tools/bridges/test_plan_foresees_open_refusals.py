"""validate_plan foresees what open_in_obsidian refuses before sending anything: a file the
caller may not read (`acl_denied`), a path outside the vault (`path_invalid`) and a file whose
'#' the plugin would read as a heading (`hash_in_path`). Its check told only a missing bridge,
so such a plan was valid and then stopped at that step, after the steps before it had run (B2
s84). A note not found is left to the run (an earlier step may make it), and the check opens
nothing. Through the dispatch chain against the stand-in."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.tools.bridges.test_bridge_tools import FILES, api_key, bridged

__all__ = ["api_key"]  # the autouse fixture that sets the API key


def step(n: int, path: str) -> dict[str, object]:
    return {"id": f"s{n}", "tool": "open_in_obsidian", "args": {"path": path}}


async def test_validate_plan_tells_the_refusals_of_open_in_obsidian(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    files = {**FILES, "Notes/C# tips.md": "# C#\n"}
    async with bridged(make_vault, tmp_path, files=files) as (vg, obsidian):
        paths = ["Private/Secret.md", "../outside.md", "Notes/C# tips.md", "Later", "Index"]
        plan = {"goal": "open", "steps": [step(n, p) for n, p in enumerate(paths)]}
        checked = await vg.ok("validate_plan", plan=plan)
        told = {p["step"]: (p["code"], (p["details"] or {}).get("reason")) for p in checked["problems"]}
        assert told == {
            "s0": ("acl_denied", None),
            "s1": ("path_invalid", told["s1"][1]),
            "s2": ("validation_error", "hash_in_path"),
        }, checked["problems"]
        refused = await vg.err("execute_plan", "validation_error", plan=plan)  # before any step ran
        assert len(refused["details"]["problems"]) == 3, refused
    assert obsidian.opened == []
