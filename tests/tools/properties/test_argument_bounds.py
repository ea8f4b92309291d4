"""Free-form JSON arguments are bounded before any tool sees them: a value nested too deep or too
large is a `validation_error`, never an `internal_error` (the reliability probe's deep
`set_properties` value crashed the YAML writer), and a stale etag fails before conversion work."""

from __future__ import annotations

from typing import Any

import pytest

from service.dispatch.validate import MAX_DEPTH, MAX_NODES
from tests.conftest import Harness


def nested(levels: int) -> Any:
    value: Any = "leaf"
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.covers("set_properties", "failure")
async def test_a_deeply_nested_property_value_is_a_validation_error_and_changes_nothing(vg: Harness) -> None:
    before = vg.snapshot()
    err = await vg.err("set_properties", "validation_error", path="Projects/Plan", properties={"deep": nested(190)})
    assert err["details"]["issues"][0] == {
        "field": "properties",
        "issue": f"nested deeper than {MAX_DEPTH} levels",
        "type": "too_complex",
    }
    await vg.err(
        "set_properties",
        "validation_error",
        path="Projects/Plan",
        properties={"deep": nested(190)},
        expected_etag="0" * 32,
    )
    assert vg.snapshot() == before


async def test_a_value_at_the_depth_limit_is_written_and_read_back(vg: Harness) -> None:
    deep = nested(MAX_DEPTH - 2)  # the properties object and its key are the first two levels
    out = await vg.ok("set_properties", path="Projects/Plan", properties={"deep": deep})
    assert out["properties"]["deep"] == deep
    assert (await vg.ok("get_properties", path="Projects/Plan"))["properties"]["deep"] == deep


async def test_a_stale_etag_fails_before_the_value_is_converted(vg: Harness) -> None:
    before = vg.snapshot()
    err = await vg.err(
        "set_properties",
        "conflict",
        path="Projects/Plan",
        properties={"deep": nested(MAX_DEPTH - 2)},
        expected_etag="0" * 32,
    )
    assert err["details"]["expected_etag"] == "0" * 32
    assert vg.snapshot() == before


async def test_too_many_values_and_deep_jsonlogic_are_validation_errors(vg: Harness) -> None:
    many = {"big": list(range(MAX_NODES + 1))}
    err = await vg.err("set_properties", "validation_error", path="Projects/Plan", properties=many)
    assert err["details"]["issues"][0]["type"] == "too_complex"
    logic: Any = {"var": "status"}
    for _ in range(200):
        logic = {"!": [logic]}
    err = await vg.err("query_jsonlogic", "validation_error", logic=logic)
    assert err["details"]["issues"][0]["field"] == "logic"
