"""A plan step's path that is no vault path is reported with the code the call itself answers
(path_invalid), not acl_denied, which would tell an agent to ask for access instead of fixing the
path (T1 s62 #6); a path the ACL denies is still acl_denied."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started


@pytest.mark.parametrize("path", ["../escape", "/abs/x", "X/a\x00b"])
async def test_a_plans_bad_path_has_the_calls_own_code(make_vault: Callable[..., Path], path: str) -> None:
    acl = {"prefix_rules": [{"path": "Private", "write": "deny"}]}
    async with started(make_vault({"Home.md": "# Home\n"}), acl=acl) as vg:
        direct = await vg.err("create_note", "path_invalid", path=path, content="x")
        steps = [
            {"id": "a", "tool": "create_note", "args": {"path": path, "content": "x"}},
            {"id": "b", "tool": "create_note", "args": {"path": "Private/N", "content": "x"}},
        ]
        out = await vg.ok("validate_plan", plan={"goal": "g", "steps": steps})
        codes = {p["step"]: p["code"] for p in out["problems"]}
        assert codes == {"a": direct["code"], "b": "acl_denied"}
