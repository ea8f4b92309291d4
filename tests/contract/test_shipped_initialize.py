"""service/protocol/initialize-answers.json (the SDK's `initialize` answers, per handshake version)
is generated from the app's SDK server and committed: a stdio start on an empty cache folder
answers `initialize` from it before the SDK loads (service/protocol/shipped_initialize.py). A
stale table fails here, with the command that regenerates it; the answers read no setting."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from service.app import VaultgateApp
from service.docs_tables import initialize_table
from service.protocol.shipped_initialize import SHIPPED, ShippedInitialize, sdk_answers
from service.settings import load_settings

COMMAND = "vaultgate docs initialize-answers > service/protocol/initialize-answers.json"


def test_the_shipped_initialize_answers_are_what_the_sdk_answers() -> None:
    assert Path(SHIPPED).read_text(encoding="utf-8") == initialize_table(), f"stale: run `{COMMAND}` and commit it"
    assert ShippedInitialize().versions, "made for another vaultgate or SDK version"


async def test_the_initialize_answers_do_not_depend_on_the_settings(make_vault: Callable[..., Path]) -> None:
    other = load_settings(make_vault(), tool_facade={"mode": "triad"})
    assert await sdk_answers(VaultgateApp(other).server) == ShippedInitialize().answers
