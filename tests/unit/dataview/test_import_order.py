"""The Dataview functions are imported with the evaluator, before any page set is built: imported
by the first query's evaluation context (after its build), their objects landed in the page set's
object pools and kept ~30 MB of them resident at 10^5 notes once the set was dropped as idle."""

from __future__ import annotations

import subprocess
import sys


def test_importing_the_evaluator_imports_the_functions() -> None:
    code = (
        "import sys, service.dataview.evaluate\n"
        "print('service.dataview.functions' in sys.modules, 'service.dataview.functions_lists' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "True"]
