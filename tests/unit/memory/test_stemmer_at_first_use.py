"""The memory words' stemmer (snowballstemmer, 10-40 ms to import: it loads every language) is
imported at the first word stemmed, not when the memory tools are imported at the server's start."""

from __future__ import annotations

import json
import subprocess
import sys

_PROBE = """
import json, sys
import service.memory.recall, service.tools.memory
before = 'snowballstemmer' in sys.modules
from service.memory.words import words
stemmed = words('Lives in Seattle, baked bread')
print(json.dumps([before, 'snowballstemmer' in sys.modules, stemmed]))
"""


def test_the_stemmer_is_imported_at_the_first_word() -> None:
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True, timeout=120)
    before, after, stemmed = json.loads(out.stdout.strip().splitlines()[-1])
    assert (before, after) == (False, True)
    assert stemmed == ["live", "seattl", "bake", "bread"]
