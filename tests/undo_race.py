"""`python -m tests.undo_race VAULT FOLDER RUN_ID`: a server process on VAULT that undoes plan run
RUN_ID through its dispatch chain (a human's confirmation minted as `vaultgate confirm` does),
held after its ACL check until the test lets it go.

It writes FOLDER/at-PID when its undo call reached the hold, waits for FOLDER/go, and writes its
answer (the structured result) to FOLDER/answer-PID.json (tests/tools/sessions/test_undo_races.py:
two of these race on one vault).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from service.app import VaultgateApp
from service.settings import load_settings
from service.tools.sessions import undo
from service.types import Principal


async def _appears(path: Path) -> None:
    while not await asyncio.to_thread(path.exists):  # noqa: ASYNC110 - a file the test writes
        await asyncio.sleep(0.005)


async def main(root: Path, folder: Path, run_id: str) -> None:
    me = os.getpid()
    real = undo._check_acl
    holding = [False]

    async def held(ctx: Any, rid: str, plan: Any) -> None:
        await real(ctx, rid, plan)
        if holding[0]:
            await asyncio.to_thread((folder / f"at-{me}").write_text, "")
            await _appears(folder / "go")

    undo._check_acl = held  # type: ignore[assignment]
    settings = load_settings(root, embeddings={"provider": "none"}, index={"watch": False}, plane={"enabled": False})
    app = VaultgateApp(settings)
    principal = Principal.local("test")  # the caller the test's harness ran the plan as
    async with app.running():
        first = await app.dispatcher.call("undo_last_plan", {"run_id": run_id}, principal=principal)
        assert first.structured is not None and first.structured["error"]["code"] == "elicit_required", first
        details = first.structured["error"]["details"]
        [request] = await app.services.confirmations.pending(details["args_hash"], details["vault"])
        token, _ = await app.services.confirmations.mint(request, minted_by="test")
        holding[0] = True
        answer = await app.dispatcher.call(
            "undo_last_plan", {"run_id": run_id, "elicit_token": str(token)}, principal=principal
        )
    await asyncio.to_thread((folder / f"answer-{me}.json").write_text, json.dumps(answer.structured))


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]))
