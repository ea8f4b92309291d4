"""service.gcpause: the collector is off inside nested and concurrent pauses, and back as it was
after the last one ends (also when the block raises)."""

from __future__ import annotations

import gc
import threading

import pytest

from service.gcpause import paused


def test_nested_and_concurrent_pauses_restore_the_collector() -> None:
    assert gc.isenabled()
    inside = threading.Event()
    release = threading.Event()

    def other() -> None:
        with paused():
            inside.set()
            release.wait(10)

    worker = threading.Thread(target=other)
    with paused():
        assert not gc.isenabled()
        worker.start()
        assert inside.wait(10)
        with paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert not gc.isenabled()  # the other thread's pause still runs
    release.set()
    worker.join(10)
    assert gc.isenabled()
    with pytest.raises(RuntimeError), paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    try:
        with paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
