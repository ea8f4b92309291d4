"""What a plan's effects (validate_plan) and a dry-run vault's previews tell a caller of files
it may not read: nothing. A memory entity in a folder the caller is denied reads the same as a
missing one (they told `modified` from `created`, `deleted` from nothing: T7 #8)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.types import Principal
from tests.conftest import Harness, started

NARROW = Principal("outsider", frozenset({"read:vault/Projects/**", "write:vault/Projects/**"}))
ENTITY = "---\nname: Ann\nentityType: person\n---\n# Ann\n\n## Observations\n- Likes tea ^m-1\n\n## Relations\n"


async def _as(vg: Harness, tool: str, **args: Any) -> dict[str, Any]:
    result = await vg.app.dispatcher.call(tool, args, principal=NARROW)
    assert result.structured is not None
    return result.structured


def _steps(name: str) -> list[tuple[str, dict[str, Any]]]:
    return [
        ("add_observations", {"observations": [{"entityName": name, "contents": ["x"]}]}),
        ("create_entities", {"entities": [{"name": name, "entityType": "person"}]}),
        ("delete_entities", {"entityNames": [name]}),
        ("write_note", {"path": f"Memory/{name}.md", "content": "x"}),
    ]


def _seen(out: dict[str, Any], name: str) -> Any:
    """The answer with the entity's name taken out: what tells one entity from another."""
    return repr({k: out.get(k) for k in ("valid", "effects", "problems", "error")}).replace(name, "NAME")


async def test_plan_effects_tell_a_denied_caller_nothing_of_what_exists(make_vault: Callable[..., Path]) -> None:
    root = make_vault()
    (root / "Memory").mkdir()
    (root / "Memory" / "Ann.md").write_text(ENTITY, encoding="utf-8")
    async with started(root) as vg:
        for (tool, ann), (_, nobody) in zip(_steps("Ann"), _steps("Nobody"), strict=True):
            plans = [{"goal": "g", "steps": [{"id": "s", "tool": tool, "args": args}]} for args in (ann, nobody)]
            seen_ann, seen_nobody = [
                _seen(await _as(vg, "validate_plan", plan=p), n) for p, n in zip(plans, ("Ann", "Nobody"), strict=True)
            ]
            assert seen_ann == seen_nobody, tool
        # the admin (who may read Memory/) is still told what is there
        plan = {"goal": "g", "steps": [{"id": "s", "tool": "add_observations", "args": _steps("Ann")[0][1]}]}
        assert (await vg.ok("validate_plan", plan=plan))["effects"]["files_modified"] == ["Memory/Ann.md"]


async def test_a_dry_run_vault_previews_a_denied_file_as_it_would_a_missing_one(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault()
    (root / "Memory").mkdir()
    (root / "Memory" / "Ann.md").write_text(ENTITY, encoding="utf-8")
    async with started(root, vaults=[{"id": "main", "path": root, "write_mode": "dry-run"}]) as vg:
        for (tool, ann), (_, nobody) in zip(_steps("Ann"), _steps("Nobody"), strict=True):
            assert _seen(await _as(vg, tool, **ann), "Ann") == _seen(await _as(vg, tool, **nobody), "Nobody"), tool
