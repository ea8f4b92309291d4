"""Client log notifications: who is told what, and no work for clients that never asked."""

from __future__ import annotations

from typing import Any

import mcp_types
import pytest

from service.indexer.jobs import Job
from service.protocol.client_log import META_KEY, RANK, ClientLogs
from service.types import Principal


class FakeConnection:
    def __init__(self) -> None:
        self.state: dict[str, Any] = {}
        self.sent: list[tuple[str, Any]] = []

    async def notify(self, method: str, params: Any) -> None:
        self.sent.append((method, params))


class FakeSession:
    def __init__(self, connection: FakeConnection) -> None:
        self._connection = connection


class FakeCtx:
    def __init__(self, connection: FakeConnection, meta: dict[str, Any] | None = None) -> None:
        self.session = FakeSession(connection)
        self.meta = meta
        self.request_id = 1


class Untouchable:
    """A request context whose session must not be looked at."""

    meta = None

    @property
    def session(self) -> Any:
        raise AssertionError("the session was consulted although no client set a level")


def test_the_log_level_meta_key_is_the_sdks() -> None:
    assert META_KEY == mcp_types.LOG_LEVEL_META_KEY


def test_no_level_anywhere_means_no_lookup_and_no_threshold() -> None:
    logs = ClientLogs()
    assert logs.threshold(Untouchable()) is None
    assert logs.threshold(None) is None


def test_set_level_applies_to_that_connection_only() -> None:
    logs = ClientLogs()
    mine, other = FakeConnection(), FakeConnection()
    logs.set_level(FakeCtx(mine), "warning")
    assert logs.threshold(FakeCtx(mine)) == RANK["warning"]
    assert logs.threshold(FakeCtx(other)) is None
    assert logs.threshold(FakeCtx(other, {META_KEY: "debug"})) == RANK["debug"]  # 2026 per-request opt-in
    assert logs.threshold(FakeCtx(other, {META_KEY: "nonsense"})) is None


@pytest.mark.parametrize(("status", "event"), [("running", "reindex_started"), ("done", "reindex_finished")])
async def test_job_events_reach_connections_at_info_that_may_see_the_vault(status: str, event: str) -> None:
    logs = ClientLogs()
    info, warning, bound_elsewhere, bound_here = (FakeConnection() for _ in range(4))
    logs.set_level(FakeCtx(info), "info")
    logs.set_level(FakeCtx(warning), "warning")
    logs.set_level(FakeCtx(bound_elsewhere), "debug", Principal(subject="x", scopes=frozenset(), vault="other"))
    logs.set_level(FakeCtx(bound_here), "debug", Principal(subject="y", scopes=frozenset(), vault="main"))
    await logs.job_changed(Job(id="j", vault_id="main", kind="sync", status=status, error="/abs/host/path"))
    for told in (info, bound_here):
        [(method, params)] = told.sent
        assert method == "notifications/message" and params["level"] == "info"
        assert params["data"]["event"] == event and "/abs/host/path" not in str(params)
    assert warning.sent == [] and bound_elsewhere.sent == []
