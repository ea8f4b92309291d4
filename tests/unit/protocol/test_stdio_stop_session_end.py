"""How `vaultgate stdio` logs the end of its session on a signal (`service.serve_stdio._stop_serving`).

The SDK's `replay_then_relay` may still be sending when the stop's cancel closes its stream: the
session then ends with `anyio.BrokenResourceError` in task groups, which the stop logged as a
warning with its traceback, so a clean stop looked failed (tests/e2e/test_operations_e2e.py::
test_stdio_serves_then_stops_cleanly_on_a_signal failed 2 of 4 runs under load: first exit 1,
then after dcc5db2c a "Traceback" in the log). Streams found closed are the stop itself; any
other error still gets its warning."""

from __future__ import annotations

import asyncio
import logging
from types import SimpleNamespace
from typing import Any, cast

import anyio
import pytest

from service.serve_stdio import _stop_serving


async def _session_ending_with(error: BaseException) -> asyncio.Task[None]:
    async def session() -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            raise error from None

    task = asyncio.ensure_future(session())
    await asyncio.sleep(0)
    return task


def _app() -> Any:
    return SimpleNamespace(plans=SimpleNamespace(stopping=lambda: None))


@pytest.mark.parametrize(
    "error",
    [
        BaseExceptionGroup("tg", [BaseExceptionGroup("tg", [anyio.BrokenResourceError()])]),
        ExceptionGroup("tg", [anyio.ClosedResourceError(), anyio.EndOfStream()]),
        anyio.BrokenResourceError(),
    ],
    ids=["nested-broken", "closed-and-end", "bare"],
)
async def test_streams_closed_by_the_stop_are_no_warning(
    error: BaseException, caplog: pytest.LogCaptureFixture
) -> None:
    serving = await _session_ending_with(error)
    with caplog.at_level(logging.DEBUG, logger="vaultgate"):
        await _stop_serving(cast(Any, _app()), None, serving, asyncio.Event())
    assert serving.done()
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text


async def test_another_error_of_the_session_is_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    serving = await _session_ending_with(ExceptionGroup("tg", [anyio.BrokenResourceError(), ValueError("bad")]))
    with caplog.at_level(logging.DEBUG, logger="vaultgate"):
        await _stop_serving(cast(Any, _app()), None, serving, asyncio.Event())
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING] == [
        "the stdio session ended with an error while stopping"
    ]
