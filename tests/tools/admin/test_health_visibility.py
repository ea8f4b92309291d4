"""server_health for a caller a path rule restricts: only the vaults its token reaches, and no
counts over files it may not read (skipped files, fallback encodings, the backlog): they are for
admin, as on /readyz, or a caller that may read every note, as in index_status. Through the
chain and over HTTP."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from service.types import Principal
from tests.conftest import e2e, started
from tests.e2e.test_plan_tasks_e2e import client
from tests.keys import SECRET, claims, hs

NO_PRIVATE = {"prefix_rules": [{"path": "Private", "read": "deny"}]}


def _vaults(make_vault: Callable[..., Path]) -> tuple[Path, list[dict[str, object]]]:
    main = make_vault({"A.md": "# A\n"}, name="one")
    (main / "Private").mkdir()
    (main / "Private/latin.md").write_bytes("# caf\xe9 secret\n".encode("latin-1"))  # read as cp1252
    os.mkfifo(main / "Private/fifo.md")  # left out of the index
    other = make_vault({"C.md": "# C\n"}, name="two")
    return main, [{"id": "main", "path": main}, {"id": "other", "path": other}]


async def test_server_health_shows_a_restricted_caller_its_vault_without_hidden_file_counts(
    make_vault: Callable[..., Path],
) -> None:
    main, vaults = _vaults(make_vault)
    async with started(main, vaults=vaults, acl=NO_PRIVATE) as vg:
        await vg.indexed()
        everything = (await vg.ok("server_health"))["vaults"]  # the local caller: unbound, reads every note
        vg.principal = Principal(subject="reader", scopes=frozenset({"read:vault"}), authenticated=True)
        restricted = (await vg.ok("server_health"))["vaults"]
        vg.principal = Principal(subject="root", scopes=frozenset({"admin"}), authenticated=True)
        admin = (await vg.ok("server_health"))["vaults"]
    assert [(v["vault"], v["skipped_files"], v["fallback_encoding"]) for v in everything] == [
        ("main", 1, 1),
        ("other", 0, 0),
    ]
    # no vault claim on a two-vault server: the default vault only, and no counts over Private/
    assert [(v["vault"], v["skipped_files"], v["fallback_encoding"]) for v in restricted] == [("main", None, None)]
    assert [(v["vault"], v["skipped_files"], v["fallback_encoding"]) for v in admin] == [("main", 1, 1)]  # as /readyz


async def test_server_health_over_http_for_a_claimless_reader(make_vault: Callable[..., Path]) -> None:
    main, vaults = _vaults(make_vault)
    auth = {"mode": "jwt", "jwt_secret": SECRET}
    async with e2e(main, vaults=vaults, acl=NO_PRIVATE, auth=auth, tool_facade={"mode": "flat"}) as (url, vg):
        await vg.indexed()
        async with client(url, hs(claims(sub="agent", scope="read:vault")), "legacy") as reader:
            health = await reader.call_tool("server_health", {})
        async with client(url, hs(claims(sub="agent", scope="read:vault", vault="other")), "legacy") as bound:
            other = await bound.call_tool("server_health", {"vault": "other"})
    assert health.structured_content is not None and other.structured_content is not None
    assert health.structured_content["vaults"] == [
        {
            "vault": "main",
            "state": "ready",
            "ready": True,
            "backlog": 0,
            "skipped_files": None,
            "fallback_encoding": None,
        }
    ]
    assert [v["vault"] for v in other.structured_content["vaults"]] == ["other"]
