"""A date bound that names no day is refused, not compared as text (M4 s71): search_memory with
since='yesterday' or until='12/05/2023', and read_memory_graph with updated_since='last week',
answered an empty list (each bound was compared with the dates as text, which kept nothing), so an
agent was told there was nothing to recall. They are validation_error (details.reason
not_a_date) naming the forms taken; the forms read as days work as before."""

from __future__ import annotations

import pytest

from tests.conftest import Harness


@pytest.mark.covers("search_memory", "failure")
@pytest.mark.covers("read_memory_graph", "failure")
async def test_a_bound_that_names_no_day_is_refused(vg: Harness) -> None:
    facts = {"entityName": "Caroline", "contents": ["Went to a support group"], "date": "7 May, 2023"}
    await vg.ok("create_entities", entities=[{"name": "Caroline", "entityType": "person"}])
    await vg.ok("add_observations", observations=[facts])
    for field, value in (("since", "yesterday"), ("until", "12/05/2023"), ("since", "May")):
        refused = await vg.err("search_memory", "validation_error", query="support group", **{field: value})
        assert refused["details"] == {"field": field, "reason": "not_a_date"} and "2023-05-08" in refused["hint"]
    graph = await vg.err("read_memory_graph", "validation_error", updated_since="last week")
    assert graph["details"] == {"field": "updated_since", "reason": "not_a_date"}
    for bounds in ({"since": "May 2023"}, {"since": "2023-05-07", "until": "2023"}, {"until": "8 May 2023"}):
        found = await vg.ok("search_memory", query="support group", **bounds)
        assert [i["text"] for i in found["items"]] == ["Went to a support group"], bounds
    for since in ("2020", "2020-01", "2020-01-01", "2020-01-01T10:00:00Z", "2020-01-01 10:00"):
        assert (await vg.ok("read_memory_graph", updated_since=since))["total"] == 1, since
