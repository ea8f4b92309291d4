"""A parse worker reads frontmatter within the server's `[limits]` it was sent, and sets the
reader back when it is done: tests serve it in their own process, and the limits it was sent
stayed set there, overriding every later reading's `[limits]` in that process (a suite run in
another order saw a 1,500-value frontmatter indexed under a limit of 1,000)."""

from __future__ import annotations

import io
import pickle
from pathlib import Path

from service.budget import configured
from service.indexer import parse_worker
from service.markdown import frontmatter


def test_serving_sets_the_frontmatter_limits_back(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("---\nitems: [1, 2, 3]\n---\nbody\n", encoding="utf-8")
    sent = {"max_frontmatter_values": 2, "max_depth": 64, "max_value_bytes": 1 << 20}
    inp = io.BytesIO()
    for message in [(str(tmp_path), sent), (["a.md"], {})]:
        pickle.dump(message, inp)
    inp.seek(0)
    out = io.BytesIO()
    parse_worker.serve(inp, out)
    out.seek(0)
    [prepared], _touch, _issues = parse_worker.read_answer(out)
    assert prepared.properties == []  # three values past the two sent: none read
    assert frontmatter.configured() is configured()  # the process's own limits again
