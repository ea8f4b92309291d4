"""validate_plan over HTTP with the SDK client (both eras) refuses a step changing a note of a
write-only folder, as the call itself is refused (tests/tools/sessions/test_plan_drop_box.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok

ACL = {"prefix_rules": [{"path": "Box", "read": "deny", "write": "allow"}]}


async def test_a_drop_box_change_is_refused_by_the_check(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault({"Home.md": "# Home\n", "Box/Old.md": "# Old\n"})
    async with e2e(root, acl=ACL) as (url, _), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        args = {"path": "Box/Old.md", "content": "more"}
        assert (await error(c, "append_note", **args))["code"] == "acl_denied"
        plan = {"goal": "g", "steps": [{"id": "a", "tool": "append_note", "args": args}]}
        checked = await ok(c, "validate_plan", plan=plan)
        assert checked["valid"] is False and [p["code"] for p in checked["problems"]] == ["acl_denied"], checked
        assert (root / "Box/Old.md").read_text(encoding="utf-8") == "# Old\n"
