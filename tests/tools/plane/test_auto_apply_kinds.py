"""`[plane] auto_apply` takes only finding kinds a run can apply: a job's name, a misspelling, a
kind whose plan asks a human or a kind with no plan is refused at start, naming the kinds that
can be; and the table that says so (`FINDING_KINDS`) holds for what the jobs report."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from service.settings.plane import FINDING_KINDS
from tests.conftest import started
from tests.tools.plane.test_plane import PLANTED, entity

RING = {f"Garden/Plant {i}.md": f"# Plant {i}\n\n[[Plant {(i + 1) % 6}]] [[Plant {(i + 2) % 6}]]\n" for i in range(6)}


def test_an_auto_apply_that_could_never_take_effect_is_refused_at_start(tmp_path: Path) -> None:
    (tmp_path / "vault").mkdir()
    kinds = ["duplicates", "tag_variant", "orphan", "duplicate"]
    env = {**os.environ, "VAULTGATE_PLANE__AUTO_APPLY": json.dumps(kinds)}
    out = subprocess.run(
        [sys.executable, "-m", "service", "config", "validate", str(tmp_path / "vault")],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        env=env,
    )
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
    assert "plane.auto_apply: 'duplicates' is not a finding kind (did you mean 'duplicate'?)" in out.stderr
    assert "'tag_variant' cannot be applied by a run: its plan (rename_tag) always asks" in out.stderr
    assert "'orphan' cannot be applied by a run: its findings have no plan" in out.stderr
    assert "Kinds a run can apply: duplicate, near_duplicate, contradiction" in out.stderr


async def test_the_kinds_a_run_may_apply_need_no_human_and_the_others_do_or_have_no_plan(
    make_vault: Callable[..., Path],
) -> None:
    vault = {**PLANTED, **RING, "Memory/Cy.md": entity("Cy", "Works at Acme", "Works at Initech")}
    async with started(make_vault(vault)) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True)
        found = (await vg.ok("list_findings", limit=500))["items"]
        seen = {f["kind"] for f in found}
        assert seen >= {"duplicate", "near_duplicate", "duplicate_entity", "contradiction", "broken_link"}
        assert seen >= {"tag_variant", "orphan", "topic_map", "digest"}
        assert seen <= set(FINDING_KINDS)
        for f in found:
            why = FINDING_KINDS[f["kind"]]
            if why is not None and "no plan" in why:
                assert f["plan"] is None, f
                continue
            assert f["plan"] is not None, f
            result = await vg.call("execute_plan", plan=f["plan"])
            if why is None:  # what auto_apply runs: done without asking
                assert not result.is_error and result.structured["status"] == "done", (f["kind"], result.structured)
            else:
                assert result.is_error and result.structured["error"]["code"] == "elicit_required", f["kind"]


async def test_a_listed_kind_whose_plan_a_configured_confirmation_holds_is_left_open_with_a_warning(
    make_vault: Callable[..., Path], caplog: pytest.LogCaptureFixture
) -> None:
    settings = {"plane": {"auto_apply": ["duplicate"]}, "confirmation": {"tools": ["delete_observations"]}}
    async with started(make_vault(PLANTED), **settings) as vg:
        await vg.indexed()
        with caplog.at_level(logging.WARNING, logger="service.plane.auto_apply"):
            out = await vg.ok("run_consolidation", wait=True, jobs=["duplicates"])
        [dup] = (await vg.ok("list_findings", kind="duplicate"))["items"]
    assert out["auto_applied"] == [] and dup["status"] == "open"
    assert any(dup["id"] in r.getMessage() and "asks a human" in r.getMessage() for r in caplog.records)
