"""The built-in model is derived once per test run, not once per xdist worker: the workers share a
models folder (tests/conftest.py) and take turns to derive into it (tests/model_share.py). Test
processes here run the real `builtin.model_path` → `quantize.int8_model` with that lock, the
derivation child replaced by a stand-in that waits for the test (and a pin that matches the
stand-in's bytes), so no real model is derived."""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from service.embeddings import builtin, quantize
from tests import model_share

ROOT = Path(__file__).resolve().parents[2]
MODEL = b"derived model bytes " * 64

# The derivation child's stand-in: its first half in its work folder (what a crash would leave),
# then it waits for `go-<its server>`, and only then writes the whole file and renames it into place.
CHILD = """
import os, sys, time
from pathlib import Path
target, control, work = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[4])  # `work`: int8_model's
model, me = bytes.fromhex(sys.argv[3]), os.getppid()
(work / "int8.onnx").write_bytes(model[: len(model) // 2])
(control / f"deriving-{me}").touch()
deadline = time.monotonic() + 120
while not (control / f"go-{me}").exists():
    if time.monotonic() > deadline:
        sys.exit(3)
    time.sleep(0.02)
(work / "int8.onnx").write_bytes(model)
os.replace(work / "int8.onnx", target)
"""

# A test worker: derives the model (as `helpers.model_ready` does), prints the file it is given.
WORKER = f"""
import hashlib, sys
from tests import model_share
model_share.install()  # as tests/conftest.py does in each worker
from service.embeddings import builtin, quantize
control, model = sys.argv[1], bytes.fromhex(sys.argv[2])
quantize.INT8_SHA256 = hashlib.sha256(model).hexdigest()
quantize._command = lambda source, target: [sys.executable, "-c", {CHILD!r}, str(target), control, model.hex()]
print(builtin.model_path()[0])
"""


def until(what: str, seen: Callable[[], bool], running: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 90
    while not seen():
        assert running.poll() is None, f"the worker ended ({running.returncode}) before: {what}"
        assert time.monotonic() < deadline, f"not seen within 90 s: {what}"
        time.sleep(0.02)


def waiting(proc: subprocess.Popen[str], folder: Path) -> bool:
    """`proc` has the models folder's lock file open (it holds the lock or waits for it)."""
    with contextlib.suppress(OSError):
        for fd in Path(f"/proc/{proc.pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                if os.readlink(fd) == str(folder / model_share.LOCK_FILE):
                    return True
    return False


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads /proc/<pid>/fd (Linux)")
def test_one_worker_derives_the_others_wait_and_a_crash_leaves_nothing_trusted(tmp_path: Path) -> None:
    models, control = tmp_path / "models", tmp_path / "control"
    control.mkdir()
    env = {**os.environ, builtin.MODELS_ENV: str(models), "PYTHONPATH": str(ROOT)}
    started: list[subprocess.Popen[str]] = []

    def worker() -> subprocess.Popen[str]:
        args = [sys.executable, "-c", WORKER, str(control), MODEL.hex()]
        proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True, start_new_session=True)
        started.append(proc)
        return proc

    def deriving(proc: subprocess.Popen[str]) -> bool:
        return (control / f"deriving-{proc.pid}").exists()

    try:
        a = worker()
        until("the first worker derives", lambda: deriving(a), a)
        b = worker()  # ...while the first one still derives: it waits, it does not derive too
        until("the second worker waits or derives", lambda: waiting(b, models) or deriving(b), b)
        assert not deriving(b), "a second worker derived the model while the first one did"

        os.killpg(a.pid, signal.SIGKILL)  # the first worker dies mid-derivation, its child too
        a.wait(90)
        until("the second worker takes over", lambda: deriving(b), b)
        target = models / quantize.INT8_FILE
        assert not target.exists()  # the crashed derivation's half file stayed in its work folder

        c = worker()  # a third one waits for the second, then finds its file
        until("the third worker waits", lambda: waiting(c, models) or deriving(c), c)
        (control / f"go-{b.pid}").touch()
        answers = [proc.communicate(timeout=120)[0].strip() for proc in (b, c)]
        assert [b.returncode, c.returncode] == [0, 0]
        assert answers == [str(target), str(target)]
        assert not deriving(c)
        assert target.read_bytes() == MODEL
        assert sorted(p.name for p in control.iterdir() if p.name.startswith("deriving-")) == sorted(
            f"deriving-{p.pid}" for p in (a, b)
        )
    finally:
        for proc in started:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(90)
            if proc.stdout is not None:
                proc.stdout.close()


def test_the_run_s_workers_share_one_models_folder(tmp_path_factory: pytest.TempPathFactory) -> None:
    base = tmp_path_factory.getbasetemp()
    run = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    assert Path(os.environ[builtin.MODELS_ENV]) == run / "models"
    assert hashlib.sha256(MODEL).hexdigest() != quantize.INT8_SHA256  # the stand-in is never the real pin


def test_a_stopping_server_stops_waiting_for_another_workers_derivation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "models"
    monkeypatch.setenv(builtin.MODELS_ENV, str(folder))
    children: list[Path] = []

    def command(source: Path, target: Path) -> list[str]:
        children.append(target)
        return ["false"]

    monkeypatch.setattr(quantize, "_command", command)
    stop = threading.Event()
    stop.set()
    with model_share.taking_turns(folder), pytest.raises(quantize.Stopped):  # another worker derives
        builtin.model_path(stop)
    assert children == []  # it stopped waiting: it did not derive beside the other worker
