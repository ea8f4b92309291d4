"""Query vectors are remembered per embedder: the same question asked of several tools is
embedded once; another model (or another embedder object) never gets a remembered vector."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from service.semantic import engine as engine_mod
from service.semantic.engine import SemanticEngine
from service.settings import EmbeddingSettings
from service.storage.db import Database


class Counting:
    def __init__(self, name: str, scale: float) -> None:
        self._name, self.scale, self.calls = name, scale, 0

    @property
    def name(self) -> str:
        return self._name

    @property
    def backend(self) -> str:
        return "test"

    async def embed_documents(self, texts: list[str]) -> np.ndarray:
        return np.array([[self.scale * len(t), 1.0] for t in texts], dtype=np.float32)

    async def embed_query(self, text: str) -> np.ndarray:
        self.calls += 1
        return np.array([[self.scale * len(text), 1.0]], dtype=np.float32)


async def test_a_query_is_embedded_once_per_embedder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = Counting("m:one", 1.0)
    engine = SemanticEngine(EmbeddingSettings(), Database(tmp_path / "x.db"), factory=lambda _: first)
    a = await engine.query_vector("young cat")
    b = await engine.query_vector("young cat")
    assert first.calls == 1 and a is b and not a.flags.writeable
    with pytest.raises(ValueError):
        a[0] = 5.0  # shared: read-only
    await engine.query_vector("old dog")
    assert first.calls == 2

    other = Counting("m:two", 3.0)  # another model: its own vector
    c = await engine.query_vector("young cat", other)
    assert other.calls == 1 and c[0] == 27.0 and a[0] == 9.0
    same_name = Counting("m:one", 5.0)  # a new embedder object of the same name: not served the old one's
    d = await engine.query_vector("young cat", same_name)
    assert same_name.calls == 1 and d[0] == 45.0

    monkeypatch.setattr(engine_mod, "QUERIES_KEPT", 2)
    for q in ("q1", "q2", "q3"):
        await engine.query_vector(q)
    calls = first.calls
    await engine.query_vector("q3")
    await engine.query_vector("q1")  # the oldest was dropped
    assert first.calls == calls + 1
