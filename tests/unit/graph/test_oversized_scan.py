"""`service.graph.oversized._may_link`: the chunked test a move applies to a note over
`[limits] max_note_bytes` never misses a mention a whole read would see (split between chunks,
percent-encoded, in another encoding), so no link rewrite is skipped silently."""

from __future__ import annotations

import io

import pytest

from service.graph import oversized
from service.graph.rewrite import link_names

NAMES = link_names(["Folder/Café Plan.md"])
PAD = "plain words " * 7


@pytest.mark.parametrize(
    ("text", "found"),
    [
        (PAD * 20, False),
        (PAD + "see [[Café Plan]] here" + PAD, True),  # split between 16-byte chunks somewhere
        (PAD + "[x](Caf%C3%A9%20Plan.md)" + PAD, True),  # percent-encoded, across chunks
        (PAD + 'up: "[[Caf\\u00e9 Plan]]"' + PAD, True),  # a YAML escape
        (PAD + "CAFE\u0301 PLAN" + PAD, True),  # NFD and upper case: folded as the rewrite folds
    ],
)
def test_a_mention_across_chunks_is_seen(monkeypatch: pytest.MonkeyPatch, text: str, found: bool) -> None:
    monkeypatch.setattr(oversized, "CHUNK", 16)
    for shift in range(16):  # every place the chunk boundary can fall
        data = (" " * shift + text).encode()
        assert oversized._may_link(io.BytesIO(data), NAMES) is found, (shift, text)


def test_what_it_cannot_read_counts_as_a_mention(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(oversized, "CHUNK", 16)
    assert oversized._may_link(io.BytesIO("see [[Café Plan]]".encode("utf-16")), NAMES)
    assert oversized._may_link(io.BytesIO(PAD.encode() + b"\xe9t\xe9 " + PAD.encode()), NAMES)  # Latin-1


def test_without_names_any_link_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(oversized, "CHUNK", 16)
    assert not oversized._may_link(io.BytesIO((PAD * 5).encode()), None)
    assert oversized._may_link(io.BytesIO((PAD + "- [ ] task" + PAD).encode()), None)
    assert oversized._may_link(io.BytesIO(b'{"nodes":[]}'), None)
    assert oversized._may_link(io.BytesIO(b'{"type": "file", "file": "A.md"}'.replace(b"[", b"")), None)
