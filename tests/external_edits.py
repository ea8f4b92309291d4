"""Another program changing a note at the last moment of the server's write to it.

`at_last_moment` wraps the file layer's atomic write (`service.vault.temps.write_in`, wherever the
vault package imported it): for the target `rel`, after the new bytes are in the fsynced temp file
and right before the file layer's last check and the rename, it runs `action` (an append, a
rename, a delete, a touch, as another process would). Deterministic: no timing race. A later
call replaces the earlier one.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from service.vault import temps


@dataclass
class LastMoment:
    rel: str
    action: Callable[[], None]
    times: int | None  # None: at every write
    ran: int = 0
    writes: int = 0  # writes to `rel` that reached the rename step


def at_last_moment(
    monkeypatch: pytest.MonkeyPatch, rel: str, action: Callable[[], None], *, times: int | None = 1
) -> LastMoment:
    state = LastMoment(rel, action, times)
    real = temps.write_in

    def write_in(
        folder_fd: int, name: str, data: bytes, *, exclusive: bool, rel: str, check: Any = None, **more: Any
    ) -> Any:
        def last_moment() -> None:
            if rel == state.rel:
                state.writes += 1
                if state.times is None or state.ran < state.times:
                    state.ran += 1
                    state.action()
            if check is not None:
                check()

        return real(folder_fd, name, data, exclusive=exclusive, rel=rel, check=last_moment, **more)

    write_in.__wrapped__ = real  # type: ignore[attr-defined]  # a later call replaces this one
    for module in list(sys.modules.values()):
        name = getattr(module, "__name__", "")
        found = getattr(module, "write_in", None)
        if name.startswith("service.vault.") and module is not temps and getattr(found, "__wrapped__", found) is real:
            monkeypatch.setattr(module, "write_in", write_in)
    return state
