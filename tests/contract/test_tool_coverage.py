"""Every registered tool has a test that drives it to success and one that drives it to failure.

Read from the tests themselves, not their text: every test module under tests/ (not bench/) is
imported and the `covers(tool, outcome)` marks of its test functions, classes, module
`pytestmark` and `pytest.param(..., marks=...)` cases are collected. A mark is only a claim
here; tests/conftest.py makes it true at run time (a declared outcome the test never produced
fails that test), so a claim counted here is one the suite keeps honest.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from service.tools.registry import build_registry
from tests.conftest import OUTCOMES

TESTS = Path(__file__).resolve().parents[1]
NOT_RUN = {"skip", "xfail"}  # a test carrying these never proves anything


def _test_modules() -> Iterator[ModuleType]:
    for path in sorted(TESTS.rglob("test_*.py")):
        rel = path.relative_to(TESTS.parent).with_suffix("")
        if "bench" in rel.parts:
            continue
        yield importlib.import_module(".".join(rel.parts))


def _marks(obj: Any) -> list[pytest.Mark]:
    raw = getattr(obj, "pytestmark", [])
    items = raw if isinstance(raw, list | tuple) else [raw]
    return [getattr(m, "mark", m) for m in items]


def _cases(marks: list[pytest.Mark]) -> Iterable[list[pytest.Mark]]:
    """The extra marks of each `pytest.param` case of the function's parametrize marks."""
    for mark in marks:
        if mark.name == "parametrize" and len(mark.args) > 1:
            for value in mark.args[1]:
                if isinstance(value, type(pytest.param(None))):
                    yield [getattr(m, "mark", m) for m in value.marks]


def _test_functions(module: ModuleType) -> Iterator[tuple[str, list[pytest.Mark]]]:
    """(qualified name, marks that apply to it) for each test function, with class and module marks."""
    base = _marks(module)
    for name, obj in vars(module).items():
        if name.startswith("test") and inspect.isfunction(obj):
            yield f"{module.__name__}::{name}", base + _marks(obj)
        elif name.startswith("Test") and inspect.isclass(obj):
            for meth_name, meth in vars(obj).items():
                if meth_name.startswith("test") and inspect.isfunction(meth):
                    yield f"{module.__name__}::{name}::{meth_name}", base + _marks(obj) + _marks(meth)


def collect_covers() -> list[tuple[str, tuple[Any, ...]]]:
    """(test, mark args) for every `covers` mark on a test that runs."""
    found: list[tuple[str, tuple[Any, ...]]] = []
    for module in _test_modules():
        for test, marks in _test_functions(module):
            if NOT_RUN & {m.name for m in marks}:
                continue
            found += [(test, m.args) for m in marks if m.name == "covers"]
            for case in _cases(marks):
                if not NOT_RUN & {m.name for m in case}:
                    found += [(test, m.args) for m in case if m.name == "covers"]
    return found


def test_every_tool_has_a_success_and_a_failure_test() -> None:
    tools = {spec.name for spec in build_registry()}
    covered: set[tuple[str, str]] = set()
    bad: list[str] = []
    for test, args in collect_covers():
        if len(args) != 2 or args[0] not in tools or args[1] not in OUTCOMES:
            bad.append(f"{test}: covers{args}")
        else:
            covered.add((args[0], args[1]))
    missing = [
        f"{tool}: no {outcome} test" for tool in sorted(tools) for outcome in OUTCOMES if (tool, outcome) not in covered
    ]
    assert not bad, "covers marks naming an unknown tool or outcome:\n" + "\n".join(bad)
    assert not missing, "tools without a covers-marked test:\n" + "\n".join(missing)


def test_the_coverage_check_reads_marks_from_real_test_functions() -> None:
    marks = collect_covers()
    assert marks, "no covers marks found: the module walk is broken"
    assert all("::test" in test for test, _ in marks)
