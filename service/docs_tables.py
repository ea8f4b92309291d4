"""The tables `vaultgate docs` prints for the package (committed, checked by `tests/contract`):
the SDK's `initialize` answers (`service/protocol/initialize-answers.json`) and its first
`tools/list` answers under the default settings (`service/protocol/tools-list-answers.json`),
each made by the SDK server of an app on an empty scratch vault. The stdio front answers an empty
cache folder's first questions from them (`service.protocol.shipped_initialize`,
`service.protocol.shipped_tools_list`).
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from service.app import VaultgateApp
from service.protocol import shipped_initialize, shipped_tools_list
from service.settings import Settings, ToolFacadeSettings, ToolVisibilitySettings, load_settings


def _scratch_settings(folder: str) -> Settings:
    """The default settings (whatever `VAULTGATE_TOOL_*` says) for an empty vault in `folder`."""
    vault = Path(folder, "vault")
    vault.mkdir()
    storage = {"cache_dir": Path(folder, "cache"), "data_dir": Path(folder, "data")}
    defaults = {"tool_facade": ToolFacadeSettings(), "tool_visibility": ToolVisibilitySettings()}
    return load_settings(vault, storage=storage).model_copy(update=defaults)


def initialize_table() -> str:
    """service/protocol/initialize-answers.json: what the SDK answers `initialize` with, per
    handshake version (the answer reads no settings)."""
    with tempfile.TemporaryDirectory() as tmp:
        app = VaultgateApp(_scratch_settings(tmp))
        return shipped_initialize.shipped_table(asyncio.run(shipped_initialize.sdk_answers(app.server)))


def tools_list_table() -> str:
    """service/protocol/tools-list-answers.json: what the SDK answers a first `tools/list` with,
    per handshake version, under the default settings (the two sections the list reads)."""
    with tempfile.TemporaryDirectory() as tmp:
        settings = _scratch_settings(tmp)
        answers = asyncio.run(shipped_tools_list.sdk_answers(VaultgateApp(settings).server))
        return shipped_tools_list.shipped_table(answers, shipped_tools_list.list_settings(settings))
