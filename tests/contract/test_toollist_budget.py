"""The default `tools/list` stays small: at most 32 KB (~8k tokens) of names, descriptions and
input schemas, measured as tests/bench/bench_toollist.py measures it (tests/toollist_size.py).
A size, not a timing: it belongs in the test run. The same limit is checked over HTTP with the
SDK client in tests/e2e/test_lean_e2e.py."""

from __future__ import annotations

from typing import Any, get_args

from service.policy.visibility import LEAN, TRIAD, Visibility
from service.settings import ToolFacadeSettings, ToolVisibilitySettings
from service.tools.registry import build_registry
from tests.toollist_size import DEFAULT_MODE_BUDGET_BYTES, measure

REGISTRY = build_registry()


def listed(mode: str) -> list[dict[str, Any]]:
    visibility = Visibility(ToolVisibilitySettings(), ToolFacadeSettings(mode=mode))  # type: ignore[arg-type]
    return [
        s.to_mcp().model_dump(mode="json", by_alias=True, exclude_none=True)
        for s in REGISTRY
        if visibility.advertised(s)
    ]


def test_the_default_mode_is_lean() -> None:
    assert ToolFacadeSettings().mode == "lean"


def test_the_default_tools_list_fits_the_budget() -> None:
    size = measure(listed(ToolFacadeSettings().mode))
    assert size["model_bytes"] <= DEFAULT_MODE_BUDGET_BYTES, size


def test_lean_advertises_exactly_the_everyday_tools_and_the_triad() -> None:
    names = [t["name"] for t in listed("lean")]
    assert sorted(names) == sorted((*LEAN, *TRIAD)) and len(names) == len(set(names))


def test_every_lean_name_is_a_registered_tool_of_its_own() -> None:
    """A typo or a renamed tool in LEAN fails here, not silently in tools/list."""
    for name in LEAN:
        spec = REGISTRY.get(name)
        assert spec is not None, f"{name} in LEAN is not a registered tool"
        assert spec.domain != "facade", name


def test_lean_is_far_smaller_than_flat() -> None:
    sizes = {mode: measure(listed(mode)) for mode in get_args(ToolFacadeSettings.model_fields["mode"].annotation)}
    assert sizes["lean"]["model_bytes"] * 2 < sizes["flat"]["model_bytes"]
    assert sizes["triad"]["tools"] == 3
