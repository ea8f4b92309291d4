"""rename_tag and replace_text plan under `[limits] max_rewrite_seconds` (`PlanClock`), as moves do:
past it `compute_budget_exceeded` (limit seconds, examined of total, setting max_rewrite_seconds)
before anything is written; the dry run, the confirmation's preview and the confirmed call are
refused alike, and a note the caller may not read is neither read nor counted (G3 s88).

Both looped over every note holding the tag / a match on their own, unbounded: a tag held by
20,000 notes was renamed for minutes under the vault's move lock. The plan clock here is a fake
one moving a second each time it is read (`service.graph.plan_clock.now`): with a budget of 2.5 s
it is made at 1, read at 2 and 3 after the first two notes, and found spent at 4 after the third,
whatever the machine's load: nothing is timed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from service.graph import plan_clock
from tests.conftest import started, write_files
from tests.ticks import Ticks

LIMITS = {"max_rewrite_seconds": 2.5}


def _ticking(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plan_clock, "now", Ticks(), raising=False)


def _vault(root: Path, notes: int = 8) -> None:
    files = {
        f"Notes/n{i}.md": f"---\ntags:\n  - proj\n---\n# n{i}\n\nAbout #proj and the old word.\n" for i in range(notes)
    }
    files["Private/p0.md"] = "---\ntags:\n  - proj\n---\nSecret #proj, the old word.\n"
    files["Private/p1.md"] = "Secret #proj, the old word.\n"
    write_files(root, files)


def _refused(err: dict[str, Any], total: int) -> None:
    details = err["details"]
    assert (details["limit"], details["setting"]) == ("seconds", "max_rewrite_seconds"), err
    assert (details["max_seconds"], details["examined"], details["total"]) == (2.5, 3, total), err
    assert "max_rewrite_seconds" in err["hint"]


ACL = {"prefix_rules": [{"path": "Private", "read": "deny", "write": "deny"}]}
CALLS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("rename_tag", {"old": "proj", "new": "project"}),
    ("replace_text", {"find": "old word", "replace": "new word"}),
)


@pytest.mark.parametrize(("tool", "args"), CALLS, ids=[t for t, _ in CALLS])
async def test_a_plan_past_its_budget_is_refused_before_anything_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tool: str, args: dict[str, Any]
) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    _vault(root)
    async with started(root, limits=LIMITS, acl=ACL) as vg:
        await vg.indexed()
        before = vg.snapshot()
        token = await vg.token_for(tool, **args, dry_run=False)  # on the real clock: well within 2.5 s
        _ticking(monkeypatch)
        for call in (
            {**args, "dry_run": True},
            {**args, "dry_run": False},
            {**args, "dry_run": False, "elicit_token": token},
        ):
            # the dry run, the confirmation's preview, the confirmed call: 8 notes counted, not the 2 denied
            _refused(await vg.err(tool, "compute_budget_exceeded", **call), 8)
        assert vg.changed_since(before) == set()


@pytest.mark.parametrize(("tool", "args"), CALLS, ids=[t for t, _ in CALLS])
async def test_the_same_call_within_its_budget_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tool: str, args: dict[str, Any]
) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    _vault(root, notes=2)  # two notes: the clock is read at 2 and 3, within 1 + 2.5
    async with started(root, limits=LIMITS, acl=ACL) as vg:
        await vg.indexed()
        token = await vg.token_for(tool, **args, dry_run=False)
        _ticking(monkeypatch)
        done = await vg.ok(tool, **args, dry_run=False, elicit_token=token)
        assert done["files_changed"] == 2, done
    text = (root / "Notes/n0.md").read_text()
    assert ("#project" in text) if tool == "rename_tag" else ("new word" in text)
    assert "the old word" in (root / "Private/p1.md").read_text()
