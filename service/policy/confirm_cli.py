"""`vaultgate confirm ARGS_HASH PATH`: a human approves one pending call.

It opens the same state database (in the data folder) the daemon uses (SQLite in WAL mode takes a second writer
safely), shows what the call would change, mints a single-use token bound to that vault + tool
+ args_hash and prints it as the last word of its output. Running the command is the approval:
it needs a shell on the machine that holds the vault, which an agent talking MCP does not have. Works
whether or not the daemon is running, so it also works over SSH on a headless server.
"""

from __future__ import annotations

import sys
import time

from service.policy.confirmations import Confirmations
from service.settings import Settings
from service.storage.db import Database
from service.storage.migrate import migrate

_same_path = "give the vault folder or config file that server was started with (not a vault id)"


async def mint_for(settings: Settings, args_hash: str, *, vault_id: str | None) -> int:
    path = settings.data_dir() / "state.db"
    if not path.is_file():
        # No server ever ran on this target: the PATH is not the one the server was started with
        # (a vault id, another folder, the folder instead of the config file). Nothing is created.
        print(f"vaultgate: no server keeps its records in {path.parent}: {_same_path}", file=sys.stderr)
        return 1
    db = Database(path, readers=1)
    await db.open()
    try:
        await migrate(db)
        ttl = settings.confirmation.elicit_ttl_seconds
        store = Confirmations(db, ttl)
        pending = await store.pending(args_hash.strip(), vault_id)
        if not pending:
            print(
                f"vaultgate: no pending call {args_hash} in {path.parent}: expired (after {ttl} s),"
                f" already confirmed, or asked of another server; {_same_path}",
                file=sys.stderr,
            )
            return 1
        if len(pending) > 1:
            vaults = ", ".join(r.vault_id for r in pending)
            print(f"vaultgate: pending in several vaults ({vaults}); pass --vault", file=sys.stderr)
            return 1
        request = pending[0]
        print(f"Call:    {request.tool} in vault {request.vault_id!r}, asked by {request.caller}")
        print(f"Changes: {request.preview}")
        token, expires = await store.mint(request, minted_by="cli")
        minutes = max(1, round((expires - time.time()) / 60))
        print(f"Approved. Single-use token, valid {minutes} min, for this exact call only:")
        print(token)
        return 0
    finally:
        await db.close()
