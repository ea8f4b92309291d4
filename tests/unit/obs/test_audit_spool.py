"""The CloudEvents spool's lines (`AuditSink._spool`): made with less Python per event, they stay
what `json.dumps(cloudevent(event), ensure_ascii=False)` per event, appended per vault and UTC
day, gave before (the oracle below is that code)."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from service.obs import audit
from service.obs.audit import AuditSink, _event_ids, cloudevent

MIDNIGHT = dt.datetime(2026, 11, 29, tzinfo=dt.UTC).timestamp()


def _event(at: float, vault: str | None, **extra: Any) -> dict[str, Any]:
    return {
        "at": at,
        "vault": vault,
        "tool": "read_note",
        "caller_hash": "ab" * 8,
        "transport": "stdio",
        "status": "ok",
        "error_code": None,
        "args_hash": "cd" * 16,
        "duration_ms": 0.412,
        "correlation_id": "0123456789abcdef",
        "confirmed": None,
        "replayed": False,
        "overflow_bytes": None,
        "session_id": None,
        **extra,
    }


def _former(spool_dir: Path, batch: list[dict[str, Any]], ids: list[str]) -> None:
    """What the spool wrote before (ids aside: the same ones here)."""
    files: dict[Path, list[str]] = {}
    for event, event_id in zip(batch, ids, strict=True):
        day = dt.datetime.fromtimestamp(event["at"], dt.UTC).strftime("%Y-%m-%d")
        path = spool_dir / (event.get("vault") or "_server") / f"{day}.jsonl"
        with_id = event if event.get("id") else {**event, "id": event_id}
        files.setdefault(path, []).append(json.dumps(cloudevent(with_id), ensure_ascii=False))
    for path, lines in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*.jsonl")}


def test_the_spool_writes_the_lines_the_former_code_wrote(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    batch = [
        _event(MIDNIGHT - 1.5, "main"),
        _event(MIDNIGHT - 0.0000004, "main"),  # the last microsecond of a day rounds to the next
        _event(MIDNIGHT - 0.0000006, "main"),
        _event(MIDNIGHT, "main", status="error", error_code="note_not_found"),
        _event(MIDNIGHT + 10.25, None, tool="server_health"),
        _event(MIDNIGHT + 11, "Ünïcode vault", tool="lire_la_note_é", duration_ms=1e-05),
        _event(MIDNIGHT + 12, "main", type="session.end", id="given-id", overflow_bytes=12345, confirmed=True),
        _event(MIDNIGHT + 86_400 * 3 + 0.5, "main", replayed=True, session_id="s1"),
    ]
    ids = iter(f"{n:032x}" for n in range(100))
    monkeypatch.setattr(audit, "_event_ids", lambda n: [next(ids) for _ in range(n)])
    sink = AuditSink.__new__(AuditSink)  # the spool uses only its folder
    sink.spool_dir = tmp_path / "new"
    sink._spool(batch)
    sink._spool(batch[:3])  # a second batch appends
    _former(tmp_path / "old", batch, [f"{n:032x}" for n in range(len(batch))])
    _former(tmp_path / "old", batch[:3], [f"{n:032x}" for n in range(len(batch), len(batch) + 3)])
    new, old = _files(tmp_path / "new"), _files(tmp_path / "old")
    assert new == old
    assert sorted(new) == [
        "_server/2026-11-29.jsonl",
        "main/2026-11-28.jsonl",
        "main/2026-11-29.jsonl",
        "main/2026-12-02.jsonl",
        "Ünïcode vault/2026-11-29.jsonl",
    ]
    assert b'"id": "given-id"' in new["main/2026-11-29.jsonl"]  # an event's own id is kept


def test_event_ids_are_random_version_4_uuids() -> None:
    ids = _event_ids(2000)
    assert len(set(ids)) == 2000
    for text in ids:
        parsed = uuid.UUID(hex=text)
        assert parsed.hex == text and parsed.version == 4 and parsed.variant == uuid.RFC_4122
