"""docs/tools.md is generated from the registry and committed; a stale page fails here, with the
command that regenerates it. Every registered name comes from the catalog's list of names."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.catalog_doc import COMMAND, first_sentence, tool_class, tools_page
from service.tools.registry import build_registry

DOCS = Path(__file__).resolve().parents[2] / "docs"
SPECS = list(build_registry())


def test_docs_tools_md_is_what_the_registry_generates() -> None:
    committed = (DOCS / "tools.md").read_text(encoding="utf-8")
    assert committed == tools_page(), f"docs/tools.md is stale: run `{COMMAND}` and commit it"


def _catalog_names() -> set[str]:
    lines = (DOCS / "catalog-names.txt").read_text(encoding="utf-8").splitlines()
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


def test_tool_names_come_from_the_catalog() -> None:
    domains = {spec.domain for spec in SPECS}  # the facade's meta-tool per domain is named after it
    unknown = [s.name for s in SPECS if s.name not in _catalog_names() and s.name not in domains]
    assert not unknown, f"tools not in docs/catalog-names.txt: {unknown}"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("read_note", "R"),
        ("append_note", "W"),
        ("delete_note", "W,C"),
        ("rename_tag", "W,C"),
        ("reindex", "A"),
        ("inspect_acl", "A"),
        ("reset_vault_cache", "D"),
        ("call_capability", "per tool"),
    ],
)
def test_the_class_column_follows_the_spec(name: str, expected: str) -> None:
    spec = next(s for s in SPECS if s.name == name)
    assert tool_class(spec) == expected


def test_first_sentence_stops_at_a_full_stop_outside_brackets() -> None:
    assert first_sentence("Read it (e.g. this. or that). Then more.") == "Read it (e.g. this. or that)."
    assert first_sentence("Use e.g. a path. More.") == "Use e.g. a path."
    assert first_sentence("No full stop") == "No full stop"
