"""The companion-route tools (Templater, QuickAdd, make.md) through the whole dispatch chain,
against the stand-in for the Local REST API with the vaultgate companion's routes
(tests/tools/bridges/standin.py: the plugin's published OpenAPI, and the routes and errors of
deploy/obsidian-plugin/src/routes.ts), over real HTTPS with a self-signed certificate."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.tools.bridges.standin import Obsidian
from tests.tools.bridges.test_bridge_tools import api_key, bridged

__all__ = ["api_key"]  # the fixture that puts the key in the environment, used here too


@pytest.mark.covers("list_templater_templates", "success")
async def test_list_templater_templates_lists_the_templates_folder(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with bridged(make_vault, tmp_path) as (vg, _):
        out = await vg.ok("list_templater_templates")
        assert out["folder"] == "Templates"
        assert [(t["path"], t["name"]) for t in out["items"]] == [
            ("Templates/Daily.md", "Daily"),
            ("Templates/Meeting.md", "Meeting"),
        ]


@pytest.mark.covers("list_templater_templates", "failure")
async def test_list_templater_templates_without_templater_or_the_companion_is_plugin_missing(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with bridged(make_vault, tmp_path, Obsidian(templates=None)) as (vg, _):
        err = await vg.err("list_templater_templates", "plugin_missing")
        assert err["details"]["plugin"] == "templater-obsidian" and err["details"]["error_code"] == 40460
    async with bridged(make_vault, tmp_path / "bare", Obsidian(companion=False)) as (vg, _):
        err = await vg.err("list_templater_templates", "plugin_missing")
        assert err["details"]["plugin"] == "vaultgate-companion"


@pytest.mark.covers("execute_template", "success")
async def test_execute_template_makes_a_note_once_a_human_confirms(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with bridged(make_vault, tmp_path) as (vg, obsidian):
        args = {"template": "Meeting", "folder": "Projects", "filename": "Kickoff"}
        token = await vg.token_for("execute_template", **args)
        assert obsidian.created == []
        out = await vg.ok("execute_template", **args, elicit_token=token)
        assert out["path"] == "Projects/Kickoff.md" and out["template"] == "Templates/Meeting.md"
    assert obsidian.created == [
        {"template": "Templates/Meeting.md", "open": False, "folder": "Projects", "filename": "Kickoff"}
    ]


@pytest.mark.covers("execute_template", "failure")
async def test_execute_template_checks_its_paths_before_anyone_is_asked_or_anything_sent(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with bridged(make_vault, tmp_path) as (vg, obsidian):
        await vg.err("execute_template", "acl_denied", template="Meeting", folder="Private", filename="X")
        await vg.err("execute_template", "path_invalid", template="Meeting", folder="../outside")
        await vg.err("execute_template", "note_not_found", template="No such template")
        await vg.err("execute_template", "validation_error", template="Meeting", filename="a/b")
        assert await vg.app.state.fetchall("SELECT tool FROM confirmation_requests", []) == []
    assert obsidian.sent == [] and obsidian.created == []


@pytest.mark.covers("list_quickadd_actions", "success")
async def test_list_quickadd_actions_lists_the_choices_flattened(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with bridged(make_vault, tmp_path) as (vg, _):
        out = await vg.ok("list_quickadd_actions")
        assert [(c["name"], c["type"], c["parent"]) for c in out["items"]] == [
            ("Log", "Capture", None),
            ("Tools", "Multi", None),
            ("New project", "Template", "Tools"),
        ]


@pytest.mark.covers("list_quickadd_actions", "failure")
async def test_list_quickadd_actions_without_quickadd_is_plugin_missing(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with bridged(make_vault, tmp_path, Obsidian(choices=None)) as (vg, _):
        err = await vg.err("list_quickadd_actions", "plugin_missing")
        assert err["details"]["plugin"] == "quickadd"


@pytest.mark.covers("trigger_quickadd", "success")
async def test_trigger_quickadd_runs_a_choice_with_its_values_once_confirmed(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with bridged(make_vault, tmp_path) as (vg, obsidian):
        out = await vg.confirmed("trigger_quickadd", choice="Log", variables={"value": "called Ann"})
        assert out == {"choice": "Log", "executed": True}
    assert obsidian.quickadd_runs == [{"choice": "Log", "variables": {"value": "called Ann"}}]


@pytest.mark.covers("trigger_quickadd", "failure")
async def test_trigger_quickadd_of_a_group_is_a_validation_error(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with bridged(make_vault, tmp_path) as (vg, obsidian):
        # refused before anyone is asked: the precheck reads QuickAdd's choices first
        err = await vg.err("trigger_quickadd", "validation_error", choice="Tools")
        assert err["details"]["reason"] == "choice_not_found"
    assert obsidian.quickadd_runs == []


@pytest.mark.covers("makemd_list_spaces", "success")
async def test_makemd_list_spaces_leaves_out_folders_the_caller_may_not_read(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with bridged(make_vault, tmp_path) as (vg, _):
        out = await vg.ok("makemd_list_spaces")
        assert [(s["path"], s["type"]) for s in out["items"]] == [("Projects", "folder"), ("spaces://#idea", "tag")]


@pytest.mark.covers("makemd_list_spaces", "failure")
async def test_makemd_list_spaces_without_makemd_is_plugin_missing(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with bridged(make_vault, tmp_path, Obsidian(spaces=None)) as (vg, _):
        err = await vg.err("makemd_list_spaces", "plugin_missing")
        assert err["details"]["plugin"] == "make-md"


@pytest.mark.covers("makemd_query", "success")
async def test_makemd_query_filters_by_text_and_kind(make_vault: Callable[..., Path], tmp_path: Path) -> None:
    async with bridged(make_vault, tmp_path) as (vg, obsidian):
        assert [s["path"] for s in (await vg.ok("makemd_query", text="PROJ"))["items"]] == ["Projects"]
        tags = await vg.ok("makemd_query", type="tag", limit=1)
        assert [s["name"] for s in tags["items"]] == ["idea"] and tags["truncated"] is False
    [query, *_] = [s for s in obsidian.sent if s.raw_path == "/vaultgate/v1/makemd/query/"]
    assert query.method == "POST"


@pytest.mark.covers("makemd_query", "failure")
async def test_makemd_query_without_the_companion_is_plugin_missing(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with bridged(make_vault, tmp_path, Obsidian(companion=False)) as (vg, _):
        err = await vg.err("makemd_query", "plugin_missing", text="x")
        assert err["details"]["plugin"] == "vaultgate-companion" and err["details"]["reason"] == "companion_missing"
