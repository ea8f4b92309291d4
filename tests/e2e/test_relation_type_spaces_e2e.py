"""tests/tools/memory/test_relation_type_spaces.py over HTTP with the SDK client (both eras): a
relation type sent with spaces before it is made once, as `knows`, and deleted by the same
arguments; before A4 s95 the call reported "  knows", made it again at each call and could not
delete it, and the list's later items were written as code."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.tools.memory.test_relation_type_spaces import BOB, HEAD


async def test_a_relation_type_with_spaces_before_it_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault({"Memory/Ann.md": HEAD, "Memory/Bob.md": BOB})) as (url, h), Client(url, mode=mode) as c:
        relation = {"from": "Ann", "to": "Bob", "relationType": "     knows"}
        made = await ok(c, "create_relations", relations=[relation])
        assert made["created"] == [{"from": "Ann", "to": "Bob", "relationType": "knows"}], made
        await ok(c, "create_relations", relations=[relation, {"from": "Ann", "to": "Bob", "relationType": "likes"}])
        assert h.read("Memory/Ann.md").endswith("## Relations\n- knows [[Memory/Bob]]\n- likes [[Memory/Bob]]\n")
        assert (await ok(c, "delete_relations", relations=[relation]))["deleted"] == 1
