"""A stdio start's first `read_note` calls, answered before the server is built.

A warm stdio start answers `initialize` and `tools/list` from the store of an earlier start
(`service.protocol.stdio_front`) within ~30 ms; the first `read_note` used to wait ~200 ms more
for pydantic, the settings, the composition root and the notes domain. Most first reads name a
note by its path on a vault whose configuration asks nothing of the call but the vault
boundary: those are answered here, from the file and the index row of its current bytes, with
the standard library and the vault's own path and file-reading modules (`service.vault.paths`,
`service.vault.dirfd`, `service.vault.decoding`).

What the answer depends on besides the note comes from the last start's built app
(`facts_of`, stored with the front's answers under the same start-up key: the command line,
the environment, the config file's bytes and the sources), so it is what `Settings` said then,
never a second reading of the configuration. `facts_of` gives None — and nothing is answered
here — unless that configuration leaves a local read of a note only the checks kept here: one
vault, no ACL rule (a local caller holds every scope), the default tool list (`read_note`
callable), the stdio fast path on (`[protocol] fast_calls`), no global tracer.

A call is answered here only when all of these hold; otherwise it goes to the dispatch chain,
in order, and every later question waits for the chain too (`FirstReads.answer` returns None):
- the request is exactly `{"jsonrpc": "2.0", "id", "method": "tools/call", "params": {"name":
  "read_note", "arguments": {"path": <string>}}}` (no `_meta`, no other argument);
- the path is a plain path: no `#`, `|`, brackets or surrounding space (wikilink forms, sections
  and aliases go to the chain), and it resolves (`VaultPaths.resolve`: traversal, lookalikes,
  hidden folders) to a regular file reached through no symlink at all;
- its bytes are UTF-8 and the index holds a row for exactly those bytes (its etag): the title,
  properties, tags and links are that row's, as `note_facts` reads it; a note the index has not
  seen in this form, or whose frontmatter is invalid, goes to the chain;
- the answer is well under the byte budget (`governor.max_response_bytes`);
- fewer calls than the read throttle's burst, and than `MAX_CALLS`, were answered here, and the
  answers kept for the replay stay under `MAX_HELD` bytes.
Every refusal (a missing note, a bad path, a hidden folder) is the chain's to answer: its error
shapes and suggestions are not copied here.

What the chain does besides answering — metrics, the audit event, the call log line, the
throttle's token — happens when the server is built: each call answered here is run again
through the chain (`replay`) and its answer dropped (a different answer, e.g. a note edited in
between, is logged). `tests/unit/protocol/test_first_reads.py` checks the answers against the
chain's for a matrix of calls, hostile ones included.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import stat
import unicodedata
from typing import TYPE_CHECKING, Any

from service.storage.driver import read_only
from service.vault.decoding import UTF8, decode_note
from service.vault.dirfd import read_file
from service.vault.paths import VaultPaths, normalize, obsidian_url, with_md

if TYPE_CHECKING:
    from service.protocol.fast_path import FastPath

TOOL = "read_note"
FACTS_VERSION = 1  # bump when `facts_of` changes what it records
# Calls answered here at most: an agent's first burst of reads (a few dozen notes read one after
# another) is answered here whole, not cut after a few by the build (~0.4 s, every later read
# behind it; bench_peer_reads). The build waits for a pause in them (`read_gate.QUIET_S`) or
# `read_gate.QUIET_MAX_S`; each is run through the chain once it is built (`replay`).
MAX_CALLS = 64
MAX_HELD = 4 * 1024 * 1024  # bytes of answers kept for the replay at most (then the chain answers)
MARGIN = 1024  # bytes kept under the budget: the chain's own size count differs in escapes
ENVELOPE = frozenset({"jsonrpc", "id", "method", "params"})
INT64 = 2**63
_NOT_PLAIN = frozenset("#|[]")
_ROW_SQL = """
SELECT n.title, n.properties, n.tags, n.frontmatter_error,
       (SELECT json_group_array(target_raw) FROM (SELECT target_raw FROM links WHERE src_id = n.id ORDER BY id))
FROM notes n WHERE n.vault_id = ? AND n.path = ? AND n.etag = ?
"""


def facts_of(app: Any) -> dict[str, Any] | None:
    """What answering a read here needs of the built `app` (a `service.app.VaultgateApp`: not
    imported, the app imports this module), or None when its configuration asks more of a read
    than the checks kept here (see the module docstring)."""
    from service.protocol.fast_path import global_tracing
    from service.settings.policy import ToolFacadeSettings, ToolVisibilitySettings

    settings = app.settings
    spec = app.registry.get(TOOL)
    if len(app.vaults) != 1 or spec is None or not settings.protocol.fast_calls or global_tracing():
        return None
    if spec.task_support or spec.confirm != "never" or spec.domain == "facade" or settings.otel.endpoint:
        return None
    if settings.tool_facade != ToolFacadeSettings() or settings.tool_visibility != ToolVisibilitySettings():
        return None  # the default tool list: `read_note` listed and callable
    (vault,) = app.vaults.values()
    if app.guard.acl_of(vault.id).restricted:
        return None
    calls = MAX_CALLS
    if settings.throttle.enabled:
        limits = settings.throttle.classes.get(spec.scope_class)
        if limits is not None:
            calls = min(calls, int(limits.burst) - 1)
    limit = settings.governor.max_response_bytes
    if spec.max_bytes is not None:
        limit = min(limit, spec.max_bytes)
    if calls < 1:
        return None
    return {
        "version": FACTS_VERSION,
        "vault": vault.id,
        "root": str(vault.paths.root),
        "name": vault.name,
        "hidden": sorted(vault.paths.hidden),
        "refuse_device_names": vault.paths.refuse_device_names,
        "db": str(app.db.path),
        "limit": limit,
        "calls": calls,
    }


def _plain_id(rid: Any) -> bool:
    if isinstance(rid, str):
        return True
    return isinstance(rid, int) and not isinstance(rid, bool) and -INT64 <= rid < INT64


class FirstReads:
    """Answers the first plain `read_note` calls of one stdio start from stored `facts`."""

    def __init__(self, facts: dict[str, Any]) -> None:
        self.facts = facts
        self.vault_id: str = facts["vault"]
        self.name: str = facts["name"]
        self.limit: int = facts["limit"]
        self.calls: int = facts["calls"]
        self.paths = VaultPaths(facts["root"], tuple(facts["hidden"]), refuse_device_names=facts["refuse_device_names"])
        self.answered: list[tuple[Any, dict[str, Any], bytes]] = []  # (id, arguments, result JSON): replayed
        self.held = 0  # bytes of the results in `answered`
        self.handshake: str | None = None  # the protocol version the client's `initialize` was answered with
        self._db: sqlite3.Connection | None = None

    @classmethod
    def from_store(cls, facts: Any, target: str | None) -> FirstReads | None:
        """The reader for stored `facts` (None when absent, of another version or root)."""
        if not isinstance(facts, dict) or facts.get("version") != FACTS_VERSION or target is None:
            return None
        try:
            if os.path.realpath(target) != facts["root"]:
                return None  # the vault folder was re-pointed since: the chain decides
            return cls(facts)
        except (KeyError, TypeError, ValueError, OSError):
            return None

    def answer(self, msg: dict[str, Any], handshake: str) -> bytes | None:
        """The response line for `msg` on a connection whose `initialize` was answered with
        `handshake` when it is answered here, else None (the chain answers)."""
        if len(self.answered) >= self.calls or msg.keys() != ENVELOPE or msg["jsonrpc"] != "2.0":
            return None
        rid, params = msg["id"], msg["params"]
        if msg["method"] != "tools/call" or not _plain_id(rid) or not isinstance(params, dict):
            return None
        if params.keys() != {"name", "arguments"} or params["name"] != TOOL:
            return None
        arguments = params["arguments"]
        if not isinstance(arguments, dict) or arguments.keys() != {"path"} or not isinstance(arguments["path"], str):
            return None
        if "OTEL_PYTHON_TRACER_PROVIDER" in os.environ:  # the SDK's protocol span would be recorded
            return None
        try:
            result = self._read(arguments["path"])
        except Exception:  # noqa: BLE001 - every refusal and every surprise is the chain's to answer
            return None
        if result is None or self.held + len(result) > MAX_HELD:
            return None
        self.held += len(result)
        self.answered.append((rid, dict(arguments), result))
        self.handshake = handshake
        return b'{"jsonrpc":"2.0","id":%s,"result":%s}\n' % (json.dumps(rid, ensure_ascii=False).encode(), result)

    def _read(self, path: str) -> bytes | None:
        if path != path.strip() or _NOT_PLAIN.intersection(path) or path.endswith("/"):
            return None  # a folder's path ('Inbox/') is the chain's to refuse
        vp = self.paths.resolve(with_md(normalize(unicodedata.normalize("NFC", path))))
        if vp.real_rel is not None:
            return None  # a symlink on the way: the chain checks where it leads
        data, st = read_file(self.paths.root, vp.rel, self._fits)  # refuses a link anywhere on the way
        if not stat.S_ISREG(st.st_mode):
            return None
        text, encoding = decode_note(data)
        if encoding != UTF8:
            return None
        etag = hashlib.sha256(data).hexdigest()[:32]  # `service.vault.files.etag_of`
        row = self._row(vp.rel, etag)
        if row is None or row[3] is not None:
            return None  # not indexed in this form, or invalid frontmatter (the chain tells a logging client)
        total = text.count("\n") + (0 if text.endswith("\n") else 1)
        structured = {
            "path": vp.rel,
            "title": row[0],
            "obsidian_url": obsidian_url(self.name, vp.rel),
            "etag": etag,
            "size": st.st_size,
            "mtime": st.st_mtime,
            "content": text,
            "properties": json.loads(row[1]),
            "tags": json.loads(row[2]),
            "links": list(dict.fromkeys(t for t in json.loads(row[4]) if t)),
            "total_lines": total,
            "start_line": 1,
            "end_line": max(total, 1),
            "frontmatter_error": None,
            "encoding": None,
            "heading_matches": None,  # every field of ReadNoteOut, in its order (a139c648 added this one)
        }
        body = json.dumps(structured, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()
        if len(body) + len(data) + MARGIN > self.limit:
            return None  # near or over the budget: the chain answers `overflow`
        text_json = json.dumps(text, ensure_ascii=False).encode()
        return b'{"content":[{"text":%s,"type":"text"}],"isError":false,"structuredContent":%s}' % (text_json, body)

    def _fits(self, st: os.stat_result) -> None:
        """A file whose bytes alone pass the answer's budget is never read here (its answer would
        be over it too: the chain answers it, by parts, or refuses a note over `max_note_bytes`)."""
        if st.st_size + MARGIN > self.limit:
            raise ValueError("over the answer's budget")

    def _row(self, rel: str, etag: str) -> tuple[Any, ...] | None:
        if self._db is None:
            # The index's own SQLite library: closing a stdlib handle on the file would drop the
            # locks of the server's connections once it is built (`service.storage.driver`).
            self._db = read_only(self.facts["db"])
        row = self._db.execute(_ROW_SQL, (self.vault_id, rel, etag)).fetchone()
        return tuple(row) if row is not None else None

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    async def replay(self, path: FastPath) -> int:
        """Run each call answered here through the chain as the stdio fast path runs it (its
        metrics, audit event, log line and throttle token), dropping the answer; returns how many
        answers differed from the one sent (each logged: a note edited in between, or a defect)."""
        import logging

        from pydantic_core import to_json

        from service.protocol.fast_path import PlainCall, result_body

        self.close()
        handshake = self.handshake or ""
        differed = 0
        calls, self.answered, self.held = self.answered, [], 0
        for rid, arguments, sent in calls:
            result = await path.run(PlainCall(TOOL, arguments, {}), rid)
            if json.loads(to_json(result_body(result, handshake))) != json.loads(sent):
                differed += 1
                logging.getLogger(__name__).warning(
                    "a read_note answered before the chain was built differed from its answer"
                )
        return differed


async def after_build(app: Any, reads: FirstReads | None) -> dict[str, Any] | None:
    """A stdio start's app (`service.app.VaultgateApp`) is built: the `reads` answered before it
    run through its chain (`FirstReads.replay`, as its stdio fast path runs a call); returns
    what the next start's first reads rely on (`facts_of` it)."""
    if reads is not None and reads.answered:
        from service.protocol.fast_path import FastPath

        await reads.replay(FastPath(app.dispatcher, None, app.client_logs))
    return facts_of(app)
