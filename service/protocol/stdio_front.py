"""The stdio channel's front: answers a client's first questions while the server still loads.

An agent host that spawns `vaultgate stdio` waits for `initialize` (or `server/discover`) and `tools/list` before it
shows a single tool. Importing the MCP SDK, the tools' models and the index takes about a second; the answers to these
three questions do not change between runs of the same code with the same settings. So the front keeps the server's
own answers on disk (`stdio-answers-<key>.json` in the cache folder), like a `.pyc`: valid only for the same key,
known before anything but the standard library is imported (`startup_key`, in `service.protocol.stdio_target`: Python,
the installed distributions, the source files of `service`, and what the settings are made of: the command line, the
working folder, the `VAULTGATE_*` and home-folder variables, the config file's bytes); `early_front` starts the front
from it, so a stored `initialize` goes out before pydantic loads. A store recorded under other effective settings is
dropped once they are loaded (`check_settings`). A thread of its own reads stdin from the spawn on (later the event
loop: `service.protocol.stdin_lines`): until the SDK session is attached, a question with a stored answer is answered
at once; everything else waits, in order (up to `MAX_PENDING` bytes, then the reader waits: `PendingLines`), and goes
to the SDK when it attaches (an answered `initialize` is handed to the SDK too, under a private id whose answer is
dropped, so the session knows its client). Every answer the SDK gives to a question the store lacks is recorded for the
next start. An empty store answers `initialize` from the package
(`service.protocol.shipped_initialize`) and, once the settings are loaded and are those it was made under,
`tools/list` too (`service.protocol.shipped_tools_list`, `settings_loaded`). With a warm store, so are the first plain
`read_note` calls (`service.protocol.first_reads`, while its `ReadGate` is open: `service.protocol.read_gate`). After
the attach the front moves lines to the SDK, or a plain `tools/call` to the fast path (`service.protocol.fast_calls`,
which it tells the era the first request opened, the `initialize` answer's protocol version and the client's
`initialize` params); a `tools/list` the store holds is still answered from it when the fast path agrees
(`FastCalls.replays`, `kept_list`): the SDK would build the list again (~2 ms at 10k notes), and its client lists the
tools before each call of a tool the lean list does not show. The command line starts loading the server once the tool
list went out (or a question needs the SDK, or half a second passed): on a small machine, loading alongside took the
interpreter from the reader and doubled the time to the first answers.

Every line is parsed and validated first (`service.protocol.framing`: strict JSON, depth and size limits, one JSON-RPC
2.0 message with a valid id), before the store, the SDK or the fast path sees it; a line that fails is answered here
with a JSON-RPC error whose id is null (the SDK's reader dropped such lines without a word, and a deeply nested one
stopped the reader). A request whose id a request in flight carries is refused (`service.protocol.stdio_ids`).

Like the SDK's own stdio transport, the front takes the wire off fd 0 and 1 at once: fd 0 then reads the null device
and fd 1 writes to stderr, so worker processes and stray prints never touch the protocol channel.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import threading

from service.protocol.framing import Refused, read_message, reused_id, too_large
from service.protocol.handshake import bare_ping, opens_modern
from service.protocol.read_gate import ReadGate
from service.protocol.sdk_pumps import SdkPumps
from service.protocol.shipped_initialize import ShippedInitialize
from service.protocol.shipped_tools_list import ShippedToolsList
from service.protocol.stdin_lines import MAX_LINE, PendingLines, StdinLines, parsed, pusher
from service.protocol.stdio_ids import IdsInFlight
from service.protocol.stdio_out import Outbox
from service.protocol.stdio_target import answers_file, cache_folder, canonical, prune_answers, startup_key, target_of
from service.protocol.stopping import stop_early_on_signal

TYPE_CHECKING = False
if TYPE_CHECKING:  # the front imports only what answering needs (json, os, threading)
    from collections.abc import AsyncIterator, Callable, Mapping
    from typing import Any

CACHED_METHODS = frozenset({"initialize", "server/discover", "tools/list"})
REPLAY_ID = "vaultgate-front-initialize"  # the id of the `initialize` replayed to the SDK
MAX_ANSWERS = 64  # distinct clients (client info, protocol version) remembered per key
FIRST_ANSWERS_S = 0.5  # how long a start waits for its first answers before loading the server anyway
MAX_KEY = 16 * 1024  # an answer to larger params is not stored (a client's are ~1 KB; each start reads the store)
__all__ = ["StdioFront", "early_front", "startup_key"]


def _debug(message: str, *args: object) -> None:
    import logging

    logging.getLogger(__name__).debug(message, *args)


def early_front(argv: list[str], environ: Mapping[str, str]) -> StdioFront | None:
    """The front of `vaultgate stdio …`, started before the settings (pydantic) are imported;
    None for anything else (help, another command, an unknown option, no target)."""
    target = target_of(argv, environ)
    if target is None:
        return None
    front = StdioFront(cache_folder(target, environ), startup_key(argv, environ), target)
    stop_early_on_signal(front.refuse, front.input_idle)  # until the loop takes them; before any answer goes out
    front.start()
    return front


class StdioFront:
    """The process's stdin/stdout for one MCP client; `start()` at once, `session()` when ready."""

    def __init__(self, folder: str | os.PathLike[str], key: str, target: str | None = None) -> None:
        self.cache_file = answers_file(folder, key)
        self.key = key
        self.answered = 0  # questions answered from the store before the SDK attached
        self._settings = ""  # digest of the effective settings the stored answers were given under
        self.reads = ReadGate(target)  # the first `read_note` calls answered here (`target`: the vault served)
        self._answers = self._load()
        self._dirty = False
        self._lock = threading.RLock()  # pending, attached, init params, misses (re-entered: `kept_list`)
        self.outbox = Outbox()  # stdout: `_write` blocks, `_send` never blocks the loop (`service.protocol.stdio_out`)
        self._pending = PendingLines()  # bounded: the reader waits past its size (`_on_line`)
        self._push: Callable[..., None] | None = None  # (line or None: end of input, parsed line); set at the attach
        self.fast: Any = None  # `service.protocol.fast_calls.FastCalls`, when set before the attach
        self._handshake: Any = None  # the protocol version the client's `initialize` was answered with
        self._modern: bool | None = None  # the client's first request opened the 2026-07-28 era (None: none yet)
        self._init_ids: dict[str, bool] = {}  # JSON ids of `initialize` requests the SDK answers
        self._replays = 0  # `initialize` requests replayed under REPLAY_ID whose answers are still to drop
        self._eof = False
        self._init_params = ""  # the client's `initialize` params: part of every later key
        self._misses: dict[str, str] = {}  # JSON id of a forwarded question -> its answer's key
        self.lines: StdinLines | None = None
        self._first_answers = threading.Event()  # the tool list went out, or a question needs the SDK
        self._list_settings: str | None = None  # what the tool list depends on, once the settings are loaded
        self._tools_list: ShippedToolsList | None = None  # read at the first `tools/list` the store lacks
        self.pumps: SdkPumps | None = None  # the SDK session's pipes, once attached
        self._refuse: Callable[[dict[str, Any]], bytes] | None = None  # the server stops: a request's answer
        self.ids = IdsInFlight()  # the requests handed on and not answered: their ids are refused

    # -- before the SDK --------------------------------------------------------------------

    def start(self) -> None:
        """Claim fd 0 and 1 for the wire and start reading."""
        in_fd = os.dup(0)
        out_fd = os.dup(1)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        os.dup2(2, 1)
        self._out = os.fdopen(out_fd, "wb", buffering=0)
        self.lines = StdinLines(in_fd, self._on_line, self._on_eof, on_oversize=self._on_oversize)
        self.lines.start()

    def input_idle(self) -> bool:
        """Every line the client wrote so far was read (`StdinLines.idle`)."""
        return self.lines is None or self.lines.idle()

    def wait_first_answers(self, timeout: float | None = None) -> bool:
        """Block until the client has its tool list from the store, or asked what only the SDK answers, or `timeout`
        (FIRST_ANSWERS_S) passed (loading meanwhile slows the reader); then while reads are answered here."""
        return self._first_answers.wait(FIRST_ANSWERS_S if timeout is None else timeout) and self.reads.wait_quiet()

    def _on_eof(self) -> None:
        if self.outbox.later(self._on_eof):
            return
        _debug("stdin closed")
        with self._lock:
            self._eof = True
            self._first_answers.set()
            self.reads.defer()
            if self._push is not None:
                self._push(None)

    def _on_oversize(self) -> None:
        self._write(too_large(None, MAX_LINE).body() + b"\n")

    def _on_line(self, line: bytes) -> None:
        if not line.strip() or self.outbox.later(lambda: self._on_line(line)):
            return  # a blank line is no message: nothing to answer; stdout is backed up: it waits
        msg = read_message(line, max_bytes=MAX_LINE)
        if isinstance(msg, Refused):  # answered here: the SDK dropped such a line without a word
            self._write(msg.body() + b"\n")
            return
        self._pending.wait_room()  # before the attach, the lines kept for the session are bounded
        with self._lock:
            if "method" in msg and "id" in msg and (self._refuse is not None or msg["id"] in self.ids):
                refused = reused_id(msg["id"]).body() if self._refuse is None else self._refuse(msg)
                self._write(refused + b"\n")  # the server stops, or the id is in flight: nothing is started
                return
            if self._modern is None and "method" in msg and "id" in msg:
                self._modern = opens_modern(msg)
                if self.fast is not None:
                    self.fast.opened(self._modern)
            forward = self._question(line, msg) if self._push is None else self._note_question(line, msg)
            if forward is not None and "method" in msg and msg.get("id", REPLAY_ID) != REPLAY_ID:
                self.ids.take(msg["id"])
            if self._push is not None:
                self._push(forward, msg)
            elif forward is not None:
                if msg.get("id") not in (None, REPLAY_ID):  # a question the server answers
                    self.reads.defer()
                self._pending.append(forward)

    def _note_question(self, forward: bytes, msg: dict[str, Any] | None = None) -> bytes:
        """After the attach: remember which stored answer an SDK answer should fill (`msg`: the
        line parsed, when the caller has it)."""
        msg = parsed(forward) if msg is None else msg
        if msg is not None and msg.get("method") in CACHED_METHODS and "id" in msg:
            if msg["method"] == "initialize":
                self._init_params = canonical(msg.get("params"))
                self._init_ids[json.dumps(msg["id"])] = True
            key = self._entry(msg["method"], msg.get("params"))
            if key not in self._answers:
                self._misses[json.dumps(msg["id"])] = key
        return forward

    def kept_list(self, msg: dict[str, Any]) -> str | None:
        """The stored result of this `tools/list` (these params, after this `initialize`), or None; the
        caller answers with it, so the SDK answer awaited for its id (`_note_question`) is not."""
        with self._lock:
            result = self._answers.get(self._entry("tools/list", msg.get("params")))
            if result is not None:
                self._misses.pop(json.dumps(msg.get("id")), None)
            return result

    def _question(self, line: bytes, msg: dict[str, Any] | None = None) -> bytes | None:
        """Before the attach: answer from the store (or `shipped_initialize`) if possible; what the SDK must see."""
        msg = parsed(line) if msg is None else msg
        if msg is not None and self.reads.answer(msg, self._handshake, self._write):
            return None
        if msg is not None and self._handshake is not None and not self._modern and bare_ping(msg):
            self._reply(msg["id"], "{}")  # without loading the server (`handshake.bare_ping`)
            return None
        if msg is None or msg.get("method") not in CACHED_METHODS or "id" not in msg:
            if msg is None or "id" in msg:
                self._first_answers.set()  # a question only the SDK answers: load it now
            return line
        method = msg["method"]
        if method == "initialize":
            self._init_params = canonical(msg.get("params"))
        key = self._entry(method, msg.get("params"))
        result = self._answers.get(key)
        if result is None and method == "initialize":  # an empty cache: the answer shipped with the package
            result = ShippedInitialize().answer(msg.get("params"))
        elif result is None and method == "tools/list":  # likewise, once the settings are known to match
            result = self._shipped_list(key, msg.get("params"))
        if result is None:
            self._misses[json.dumps(msg["id"])] = key
            if method == "initialize":
                self._init_ids[json.dumps(msg["id"])] = True
            self._first_answers.set()
            return line
        self._reply(msg["id"], result)
        if method != "initialize":
            if method == "tools/list":
                self._first_answers.set()
            return None
        self._initialized(parsed(result.encode()))
        if self._entry("tools/list", None) not in self._answers and self._entry("tools/list", {}) not in self._answers:
            self._first_answers.set()  # the list is not stored (an empty cache): load now, not at its question
        msg["id"] = REPLAY_ID  # the session must still see its client's handshake
        self._replays += 1
        return json.dumps(msg).encode()

    async def built(self, app: Any) -> Any:
        """The server (`app`) is built: the reads answered here run through its chain and no more
        are (`first_reads.after_build`), what the next start's rely on is stored; then `session`."""
        from service.protocol.first_reads import after_build

        with self._lock:
            reads = self.reads.take()
        facts = await after_build(app, reads)
        with self._lock:
            if facts != self.reads.facts:
                self.reads.facts = facts
                self._dirty = True
            self._save()
        return self.session()

    def settings_loaded(self, list_settings: str) -> None:
        """The settings are loaded (`list_settings`: `shipped_tools_list.list_settings` of them): a
        `tools/list` waiting for the SDK is answered from the package's table if made under them."""
        with self._lock:
            self._list_settings = list_settings
            for line in self._pending.take():
                msg = parsed(line)
                if msg is not None and msg.get("method") == "tools/list" and "id" in msg:
                    result = self._shipped_list(self._entry("tools/list", msg.get("params")), msg.get("params"))
                    if result is not None:
                        self._misses.pop(json.dumps(msg["id"]), None)
                        self._reply(msg["id"], result)
                        continue
                self._pending.append(line)
            self._save()

    def _shipped_list(self, key: str, params: Any) -> str | None:
        """The shipped `tools/list` answer (`service.protocol.shipped_tools_list`), stored under
        `key` for the next start; None before the settings are loaded or when they differ."""
        if self._list_settings is None:
            return None
        if self._tools_list is None:
            self._tools_list = ShippedToolsList()
        result = self._tools_list.answer(self._handshake, params, self._list_settings)
        if result is not None:
            self._record(key, result)
        return result

    def _record(self, key: str, result: str) -> None:
        if len(self._answers) < MAX_ANSWERS and len(key) <= MAX_KEY:
            self._answers[key] = result
            self._dirty = True

    def _reply(self, msg_id: Any, result: str) -> None:
        self.ids.free(msg_id)  # a `tools/list` the settings answered while it waited
        rid = json.dumps(msg_id, ensure_ascii=False).encode()  # as the SDK writes it: 'é', not '\\u00e9'
        self._write(b'{"jsonrpc":"2.0","id":%s,"result":%s}\n' % (rid, result.encode()))
        self.answered += 1
        self.reads.answered()

    def _entry(self, method: str, params: Any) -> str:
        return f"{self._init_params}|{method}|{canonical(params)}"

    @property
    def _out(self) -> Any:
        return self.outbox.out

    @_out.setter
    def _out(self, out: Any) -> None:
        self.outbox.out = out

    def _write(self, data: bytes) -> None:
        self.outbox.write(data)

    async def _send(self, payload: bytes) -> None:
        """One line to the client, on the event loop, which it never blocks."""
        await self.outbox.send(payload)

    def _initialized(self, result: Any) -> None:
        """The client's `initialize` was answered with `result`: the fast path learns its version."""
        self._handshake = result.get("protocolVersion") if isinstance(result, dict) else None
        if self.fast is not None:
            self.fast.initialized(self._handshake, self._init_params)

    # -- the SDK session ---------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def session(self) -> AsyncIterator[tuple[Any, Any]]:
        """The SDK's (read, write) streams; waiting questions go to the SDK first, in order (with a
        fast path, once it hands over: `FastCalls.hand_over`; the first plain calls go first)."""
        import anyio
        from mcp.shared._context_streams import create_context_streams

        raw_send, raw_recv = anyio.create_memory_object_stream[bytes](float("inf"))
        read_writer, read_stream = create_context_streams["Any"](0)  # SDK messages or exceptions
        write_stream, write_reader = create_context_streams["Any"](0)
        fast = self.fast
        self.outbox.watch(fast, self)  # the requests running bound the work (`service.protocol.stdio_out`)
        if fast is not None:
            fast.bind(raw_send.send_nowait, self._send, self.kept_list, self.ids.free)
            fast.initialized(self._handshake, self._init_params)
            if self._modern is not None:  # else `_on_line` tells it at the first request
                fast.opened(self._modern)
        route = fast.route if fast is not None else lambda line, msg: raw_send.send_nowait(line)
        lines = self.lines
        loop_call = pusher(route, raw_send.close)

        with self._lock:
            for line in self._pending.take():  # as many as there is room for (`Outbox.later`), the rest wait
                self.outbox.run(functools.partial(route, line, parsed(line)))
            if self._eof:
                raw_send.close()
            self._push = loop_call
        if lines is not None:
            lines.to_loop()  # the loop reads stdin from the next message on
        try:
            async with anyio.create_task_group() as tg:
                self.pumps = pumps = SdkPumps(self._send, self._from_server, REPLAY_ID, raw_recv, self.outbox.release)
                pumps.freed = self.ids.free
                tg.start_soon(pumps.pump_in, read_writer, None if fast is None else fast.sdk_ready.wait)
                tg.start_soon(pumps.pump_out, write_reader)
                yield read_stream, write_stream
                if fast is not None:
                    await fast.aclose()
                tg.cancel_scope.cancel()
        finally:
            self._save()

    def refuse(self, answer: Callable[[dict[str, Any]], bytes]) -> None:
        """The server stops (`service.protocol.stdio_stop`): each request waiting for the SDK to
        attach, and each that comes from now on, is answered `answer(request)` and not started."""
        with self._lock:
            self._refuse = answer
            for msg in map(parsed, self._pending.take()):
                if msg is not None and "method" in msg and msg.get("id", REPLAY_ID) != REPLAY_ID:
                    self.ids.free(msg["id"])
                    self._write(answer(msg) + b"\n")

    def _from_server(self, msg_id: Any, data: str) -> bool:
        """Whether to send an SDK message on; an answer the store lacks is recorded."""
        if msg_id is None:
            return True
        if msg_id == REPLAY_ID:
            with self._lock:  # only the replays' answers: a client may use the id for a request of its own
                if self._replays:
                    self._replays -= 1
                    return False
        if self._init_ids and self._init_ids.pop(json.dumps(msg_id), False):
            self._initialized(json.loads(data).get("result"))
        if not self._misses:
            return True
        with self._lock:
            key = self._misses.pop(json.dumps(msg_id), None)
        if key is not None:
            result = json.loads(data).get("result")
            if isinstance(result, dict):
                self._record(key, json.dumps(result, separators=(",", ":"), ensure_ascii=False))
                self._save()
        return True

    # -- the store ---------------------------------------------------------------------------

    def check_settings(self, settings_json: str) -> None:
        """Once the settings are loaded: stored answers given under other effective settings
        (which the start-up key should have told apart) are dropped, to be recorded again."""
        digest = hashlib.sha256(settings_json.encode()).hexdigest()
        with self._lock:
            if self._settings and self._settings != digest:
                _debug("stdio answers recorded under other settings: dropped")
                self._answers.clear()
                self.reads.facts = None
            if self._settings != digest:
                self._settings = digest
                self._dirty = True

    def _load(self) -> dict[str, str]:
        try:
            with open(self.cache_file, "rb") as handle:
                data = json.loads(handle.read())
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("key") != self.key or not isinstance(data.get("answers"), dict):
            return {}
        with contextlib.suppress(OSError):
            os.utime(self.cache_file)  # in use: the last store pruned
        settings = data.get("settings")
        self._settings = settings if isinstance(settings, str) else ""
        self.reads.facts = data["reads"] if isinstance(data.get("reads"), dict) else None
        return {k: v for k, v in data["answers"].items() if isinstance(k, str) and isinstance(v, str)}

    def _save(self) -> None:
        if not self._dirty:
            return
        self._dirty = False
        folder, name = os.path.split(self.cache_file)
        tmp = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
        try:
            os.makedirs(folder, exist_ok=True)
            with open(tmp, "w", encoding="utf-8") as handle:
                stored = {"key": self.key, "settings": self._settings, "answers": self._answers}
                json.dump(stored | ({"reads": self.reads.facts} if self.reads.facts else {}), handle)
            os.replace(tmp, self.cache_file)
        except OSError as exc:
            _debug("stdio answers not stored: %s", exc)
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            return
        try:
            prune_answers(self.cache_file)
        except OSError as exc:
            _debug("old stdio answers not removed: %s", exc)
