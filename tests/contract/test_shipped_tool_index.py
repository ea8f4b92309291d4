"""service/tools/tool-index.json (where each tool is declared) is generated from the registry and
committed: a first start on an empty cache folder imports no domain before its first call with it
(service/storage/tool_index.py). A stale table fails here, with the command that regenerates it."""

from __future__ import annotations

from service.storage.tool_index import SHIPPED, read_shipped, shipped_table
from service.tools.registry import build_registry

COMMAND = "vaultgate docs tool-index > service/tools/tool-index.json"


def test_the_shipped_tool_index_is_what_a_complete_registry_finds() -> None:
    where = build_registry().where_found()
    assert SHIPPED.read_text(encoding="utf-8") == shipped_table(where), f"stale: run `{COMMAND}` and commit it"
    assert read_shipped() == where
