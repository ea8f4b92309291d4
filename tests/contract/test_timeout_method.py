"""A test that runs past pytest-timeout's limit fails alone; the rest of the run goes on.

With the `signal` method the alarm raises wherever the worker is when it fires: inside a test's
phase that is a failure of the test, but between phases (a report being made or sent, slow on a
loaded machine) the exception escapes pytest's runner, the worker ends with an INTERNALERROR and
xdist's controller stops the whole run with its own (`worker_workerfinished: assert not
crashitem`), the tests not yet run unreported. The `thread` method (pyproject's
`timeout_method`) ends the worker instead; xdist reports the test as failed ("crashed"), starts
a new worker and runs the rest. Here: a pytest run in a subprocess with this project's timeout
settings (and only the xdist and pytest-timeout plugins: a quick start on a loaded machine) over
a test whose report takes longer than its limit and six quick ones.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CONFTEST = """
import time
import pytest

@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if call.when == "call" and item.name == "test_reported_slowly":
        time.sleep(4)  # a report made slowly, as on a loaded machine: past the limit, between phases
    return report
"""

TESTS = """
import pytest

@pytest.mark.timeout(2)
def test_reported_slowly():
    pass

@pytest.mark.parametrize("i", range(6))
def test_quick(i):
    pass
"""


def test_a_timeout_between_a_tests_phases_fails_that_test_and_the_run_goes_on(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    (tmp_path / "test_slow_report.py").write_text(TESTS, encoding="utf-8")
    ini = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    settings = {key: value for key, value in ini.items() if key.startswith("timeout")}
    assert settings["timeout"] >= 60, settings
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\n" + "".join(f"{key} = {value}\n" for key, value in settings.items()), encoding="utf-8"
    )
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "xdist.plugin", "-p", "pytest_timeout", "-p", "no:cacheprovider"]
        + ["-n", "1", "-q", "-rf", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
        env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
    )
    out = run.stdout + run.stderr
    assert "INTERNALERROR" not in out, out[-3000:]
    assert run.returncode == 1, out[-3000:]  # tests failed (not 3: an internal error)
    assert "FAILED test_slow_report.py::test_reported_slowly" in out and "1 failed, 6 passed" in out, out[-3000:]
