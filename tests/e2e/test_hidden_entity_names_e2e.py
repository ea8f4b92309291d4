"""open_nodes by an agent whose token is narrowed to a folder, end to end (a real uvicorn server
with JWT identities and the SDK client, both eras; U10 s94): a name whose own note the token
closes (Memory/Boss.md for an agent limited to Memory/Ann*) is `missing`, as an absent one, and
the names it may open are answered; before, the whole call was acl_denied."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.e2e.test_shared_memory_agents_e2e import AUTH, agent

FILES = {
    "Memory/Ann.md": "# Ann\n\n## Observations\n- Likes tea\n",
    "Memory/Boss.md": "# Boss\n\n## Observations\n- Under investigation\n",
}


async def test_a_name_the_token_closes_is_missing_and_the_others_answered(
    make_vault: Callable[..., Path], mode: str
) -> None:
    async with (
        e2e(make_vault(FILES), auth=AUTH) as (url, _h),
        agent(url, "carol", mode, scope="read:vault/Memory/Ann.md read:vault/Projects/**") as carol,
    ):
        opened = await ok(carol, "open_nodes", names=["Ann", "Boss", "Nobody"])
        assert [e["path"] for e in opened["entities"]] == ["Memory/Ann.md"]
        assert opened["missing"] == ["Boss", "Nobody"]
        assert "investigation" not in str(opened)
