"""service/protocol/tools-list-answers.json (the SDK's first `tools/list` answers under the default
settings, per handshake version) is generated from the app's SDK server and committed: a stdio
start on an empty cache folder answers `tools/list` from it once its settings are loaded, before
the app is built (service/protocol/shipped_tools_list.py). A stale table fails here, with the
command that regenerates it; the list reads no setting but the two sections the table is keyed by."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from service.app import VaultgateApp
from service.docs_tables import tools_list_table
from service.protocol.shipped_initialize import ShippedInitialize
from service.protocol.shipped_tools_list import SHIPPED, ShippedToolsList, list_settings, sdk_answers
from service.settings import ToolFacadeSettings, ToolVisibilitySettings, load_settings

COMMAND = "vaultgate docs tools-list-answers > service/protocol/tools-list-answers.json"


def test_the_shipped_tool_lists_are_what_the_sdk_answers() -> None:
    assert Path(SHIPPED).read_text(encoding="utf-8") == tools_list_table(), f"stale: run `{COMMAND}` and commit it"
    table = ShippedToolsList()
    assert table.settings, "made for another vaultgate or SDK version"
    for version in ShippedInitialize().versions:  # every handshake the front can answer
        assert table.answer(version, {}, table.settings) is not None


async def test_the_tool_list_depends_only_on_the_facade_and_visibility_settings(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    defaults = {"tool_facade": ToolFacadeSettings(), "tool_visibility": ToolVisibilitySettings()}
    other = load_settings(
        make_vault(),
        embeddings={"provider": "none"},
        index={"watch": False, "parse_workers": 1},
        protocol={"fast_calls": False},
        http={"json_response": True},
        storage={"cache_dir": tmp_path / "cache", "readers": 1},
    ).model_copy(update=defaults)
    table = ShippedToolsList()
    assert list_settings(other) == table.settings
    answers = await sdk_answers(VaultgateApp(other).server)
    assert {version: table.answer(version, None, table.settings) for version in answers} == answers

    flat = load_settings(make_vault(), tool_facade={"mode": "flat"})
    assert list_settings(flat) != table.settings  # the front leaves this list to the SDK
