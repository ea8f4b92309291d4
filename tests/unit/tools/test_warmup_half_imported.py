"""The query warm-up looks at the query engines' tool modules only once they are imported; a module
another thread is still importing (tools/list builds the registry in a worker thread) is half made:
its functions may not exist yet. The warm-up took it for imported, and `pages_built` raised
AttributeError ('partially initialized module ... most likely due to a circular import'), logged
at a stdio start; the same in the idle release loop ended that loop for good."""

from __future__ import annotations

import importlib.machinery
import sys
import types

import pytest

from service.tools import query_warmup
from service.tools.query_warmup import BASES, DATAVIEW, GRAPH


def _half_made(name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    spec = importlib.machinery.ModuleSpec(name, None)
    spec._initializing = True  # type: ignore[attr-defined]  # what importlib sets while a module runs
    module.__spec__ = spec
    return module


@pytest.mark.parametrize("name", [BASES, DATAVIEW, GRAPH])
def test_a_module_still_being_imported_is_not_taken_for_imported(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, name, _half_made(name))
    assert query_warmup._engine(name, False) is None


def test_an_imported_module_is_taken_and_an_absent_one_is_not(monkeypatch: pytest.MonkeyPatch) -> None:
    done = importlib.import_module(DATAVIEW)
    assert query_warmup._engine(DATAVIEW, False) is done
    monkeypatch.delitem(sys.modules, DATAVIEW)
    assert query_warmup._engine(DATAVIEW, False) is None
