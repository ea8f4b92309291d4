"""The built-in model's derived int8 graph (pinned sha256, remade when damaged, vectors close to
the shipped file's) and its batch thread of lowered priority."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from service.embeddings import builtin, quantize
from service.embeddings.tokens import package_file

TEXTS = ["Feed the sourdough starter with flour and water.", "The train to Kyoto leaves at nine.", "x"]


def shipped() -> Path:
    return package_file(builtin.MODEL_PACKAGE, builtin.MODEL_FILE, builtin.MODEL_SHA256)


def models_folder() -> Path:
    return Path(os.environ[builtin.MODELS_ENV])


# One derivation each (78 s at load 17 on 2 cores): both in one test took past pytest's 180 s.
def test_the_derived_model_matches_its_pin() -> None:
    made = quantize.int8_model(models_folder(), shipped())  # the session's, made when first needed
    assert made is not None and quantize._sha256(made) == quantize.INT8_SHA256


def test_a_damaged_derived_model_is_made_again(tmp_path: Path) -> None:
    folder = tmp_path / "models"
    folder.mkdir()
    damaged = folder / quantize.INT8_FILE
    damaged.write_bytes(b"not a model")
    again = quantize.int8_model(folder, shipped())
    assert again == damaged and quantize._sha256(again) == quantize.INT8_SHA256


def test_without_a_derived_model_the_shipped_file_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(quantize.sys, "executable", str(tmp_path / "no-python"))
    assert quantize.int8_model(tmp_path / "models", shipped()) is None
    monkeypatch.setenv(builtin.MODELS_ENV, str(tmp_path / "models"))
    assert builtin.model_path() == (str(shipped()), "onnxruntime-cpu")


def test_int8_vectors_are_close_to_the_shipped_models() -> None:
    import onnxruntime as ort  # type: ignore[import-untyped,unused-ignore]

    derived, kind = builtin.model_path()
    assert kind == "onnxruntime-cpu dynamic-int8"
    assert builtin.MODEL_NAME.endswith("-fused")  # vectors of an earlier derivation are not mixed in
    rows = {}
    saved = dict(builtin._sessions)
    try:
        for name, path in (("shipped", str(shipped())), ("int8", derived)):
            builtin._sessions[1] = (ort.InferenceSession(path, providers=["CPUExecutionProvider"]), name)
            rows[name] = builtin.encode(TEXTS, 1)
    finally:
        builtin._sessions.clear()
        builtin._sessions.update(saved)
    cosine = (rows["shipped"] * rows["int8"]).sum(axis=1)
    assert cosine.min() > 0.95
    assert np.allclose(np.linalg.norm(rows["int8"], axis=1), 1.0, atol=1e-5)


def test_the_rebuilt_graph_computes_what_the_exported_one_does(tmp_path: Path) -> None:
    """`graph.rebuild` (fused operators, before quantisation) is the same network: float32 token
    embeddings of the two graphs agree to rounding, for one text and for a right-padded batch."""
    import onnxruntime as ort  # type: ignore[import-untyped,unused-ignore]

    from service.embeddings.graph import SESSION_OFF, rebuild
    from service.embeddings.tokens import tokenizer

    folded, fused = tmp_path / "folded.onnx", tmp_path / "fused.onnx"
    quantize.fold(shipped(), folded)
    rebuild(folded, fused)
    ids = [tokenizer().encode(t).ids for t in TEXTS]
    seq = np.zeros((len(ids), max(map(len, ids))), dtype=np.int64)
    for row, one in enumerate(ids):
        seq[row, : len(one)] = one
    feeds = [
        {"input_ids": seq[:1, : len(ids[0])], "attention_mask": np.ones_like(seq[:1, : len(ids[0])])},
        {"input_ids": seq, "attention_mask": (seq != 0).astype(np.int64)},
    ]
    for feed in feeds:
        feed["token_type_ids"] = np.zeros_like(feed["input_ids"])
        exported = ort.InferenceSession(str(folded), providers=["CPUExecutionProvider"]).run(None, feed)[0]
        ours = ort.InferenceSession(
            str(fused), providers=["CPUExecutionProvider"], disabled_optimizers=SESSION_OFF
        ).run(None, feed)[0]
        real = feed["attention_mask"].astype(bool)  # padded positions are never pooled
        assert np.allclose(exported[real], ours[real], atol=2e-4)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread priority is a Linux feature")
def test_document_batches_run_on_threads_of_lower_priority() -> None:
    ours = os.getpriority(os.PRIO_PROCESS, 0)
    both = threading.Barrier(2, timeout=30)  # the two calls must run on the two workers at once

    def priority() -> tuple[int, int]:
        both.wait()
        return threading.get_native_id(), os.getpriority(os.PRIO_PROCESS, 0)

    pool = builtin.batch_pool(2)
    seen = [f.result() for f in [pool.submit(priority), pool.submit(priority)]]
    assert len({tid for tid, _ in seen}) == 2
    assert {nice for _, nice in seen} == {min(19, ours + builtin.BATCH_NICE)}
    assert os.getpriority(os.PRIO_PROCESS, 0) == ours  # the calling thread keeps its own


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_texts_embedded_side_by_side_keep_their_rows_and_vectors(threads: int) -> None:
    """`embed_documents` hands the texts of a batch to `threads` workers in turns: each row is
    still its own text's vector, exactly what embedding that text alone gives."""
    texts = [*TEXTS, "", "a much longer companion text " * 40, "Kyoto", "wild yeast " * 9]
    alone = np.vstack([builtin.encode([t]) for t in texts])
    got = asyncio.run(builtin.BuiltinEmbedder(threads=threads).embed_documents(texts))
    assert got.shape == (len(texts), builtin.DIM)
    assert np.array_equal(got, alone)


def test_the_idle_model_is_dropped_after_its_last_call_and_loaded_again_when_needed() -> None:
    """After `unload_after_s` without a call the session goes (the timer is set when the last call
    ends, never while one runs); the next call loads it again and gives the same vectors."""

    async def scenario() -> None:
        embedder = builtin.BuiltinEmbedder(threads=2, unload_after_s=300)
        loop = asyncio.get_running_loop()
        before = await embedder.embed_documents(TEXTS)
        assert 1 in builtin._sessions
        due = embedder.unload_at
        assert due is not None and 299 < due - loop.time() <= 300
        query = await embedder.embed_query(TEXTS[0])
        assert embedder.unload_at is not None and embedder.unload_at >= due  # each call starts it again

        started, release = asyncio.Event(), asyncio.Event()
        real = builtin._take_turns

        def held(*args: object) -> None:
            loop.call_soon_threadsafe(started.set)
            asyncio.run_coroutine_threadsafe(release.wait(), loop).result()
            real(*args)  # type: ignore[arg-type]

        builtin._take_turns = held  # type: ignore[assignment]
        try:
            running = asyncio.create_task(embedder.embed_documents(TEXTS[:1]))
            await started.wait()
            assert embedder.unload_at is None  # no timer while a call runs
            assert not await embedder.unload_idle() and 1 in builtin._sessions
            release.set()
            await running
        finally:
            builtin._take_turns = real  # type: ignore[assignment]

        assert await embedder.unload_idle()  # what the timer runs
        assert not builtin._sessions and embedder.unloads == 1
        assert np.array_equal(await embedder.embed_documents(TEXTS), before)
        assert np.array_equal(await embedder.embed_query(TEXTS[0]), query)
        assert 1 in builtin._sessions

    asyncio.run(scenario())


def test_the_timer_drops_the_model_configured_through_the_settings() -> None:
    from service.embeddings.factory import build_embedder
    from service.settings import EmbeddingSettings

    async def scenario() -> None:
        embedder = build_embedder(EmbeddingSettings(provider="builtin", unload_after_s=0.01))
        assert isinstance(embedder, builtin.BuiltinEmbedder)
        await embedder.embed_query("sourdough")
        for _ in range(6000):  # the timer's own task runs the unload: wait for it, however slow
            if embedder.unloads:
                break
            await asyncio.sleep(0.01)
        assert embedder.unloads == 1 and not builtin._sessions and embedder.unload_at is None

    asyncio.run(scenario())


def test_unload_after_zero_keeps_the_model() -> None:
    async def scenario() -> None:
        embedder = builtin.BuiltinEmbedder(unload_after_s=0)
        await embedder.embed_documents(TEXTS[:1])
        assert embedder.unload_at is None and 1 in builtin._sessions

    asyncio.run(scenario())


def test_a_text_gets_the_same_vector_whatever_shares_its_batch() -> None:
    """The int8 graph quantises activations per call: texts are embedded one per call, so a
    chunk's vector does not depend on its batch (results stay reproducible; filtered answers
    equal the answers of a vault without the filtered notes)."""
    import numpy as np

    from service.embeddings.builtin import encode

    text = "Feed the wild yeast culture with flour and water every day until it bubbles."
    alone = encode([text])
    among = encode(["a short one", text, "a much longer companion text " * 20])
    assert np.array_equal(alone[0], among[1])


def test_the_model_runs_without_writing_a_device_id_or_usage_events(tmp_path: Path) -> None:
    """onnxruntime 1.32's Linux build writes a device id and an event queue for upload under the
    user's cache folder unless its telemetry is off; the built-in model never lets it (a fresh
    home, the model embedded a text, nothing of onnxruntime's own in it)."""
    import subprocess

    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "ORT_DISABLE_TELEMETRY"}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), XDG_DATA_HOME=str(home / ".local"))
    code = "from service.embeddings import builtin; print(builtin.encode(['a note about bread']).shape)"
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, timeout=300)
    assert run.stdout.strip() == "(1, 384)"
    assert not [p for p in home.rglob("*") if "onnxruntime" in p.name.lower() or p.name == "Microsoft"]


def test_a_stopping_server_ends_a_derivation_in_progress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server stopped while the int8 model is derived (its first start: seconds to minutes) ends
    the child and loads nothing; the shutdown waited for the whole derivation and then for the
    shipped model (7-17 s past the grace period in an acceptance run). A child ended by a signal
    (a stop sent to the process group) is a stop too, not a failed derivation."""
    slow = [sys.executable, "-c", "import time; time.sleep(120)"]
    monkeypatch.setattr(quantize, "_command", lambda source, target: slow)
    stop = threading.Event()
    seen: list[BaseException] = []

    def derive() -> None:
        try:
            builtin.model_path(stop)
        except BaseException as exc:  # noqa: BLE001 - the test looks at it
            seen.append(exc)

    worker = threading.Thread(target=derive)
    worker.start()
    stop.set()
    worker.join(60)
    assert not worker.is_alive() and len(seen) == 1 and isinstance(seen[0], quantize.Stopped)

    killed = [sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"]
    monkeypatch.setattr(quantize, "_command", lambda source, target: killed)
    with pytest.raises(quantize.Stopped):
        quantize.int8_model(tmp_path / "models", shipped())


def test_a_closed_embedder_abandons_its_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    """`aclose` (the server stopping) ends a batch at its next text: its threads are not joined
    for the rest of a batch at interpreter exit."""
    embedded: list[str] = []
    entered, go_on = threading.Event(), threading.Event()

    def one(session: object, tok: object, text: str) -> np.ndarray:
        embedded.append(text)
        entered.set()
        go_on.wait(30)
        return np.ones(builtin.DIM, dtype=np.float32)

    monkeypatch.setattr(builtin, "_session", lambda threads, stop=None: (object(), "fake"))
    monkeypatch.setattr(builtin, "_embed_one", one)
    embedder = builtin.BuiltinEmbedder(threads=1)

    async def run() -> None:
        batch = asyncio.ensure_future(embedder.embed_documents([f"text {i}" for i in range(50)]))
        await asyncio.to_thread(entered.wait, 30)
        await embedder.aclose()
        go_on.set()
        with pytest.raises(builtin.EmbeddingUnavailable):
            await batch

    asyncio.run(run())
    assert embedded == ["text 0"]


def test_a_derivation_ended_by_a_stop_leaves_no_work_folder(tmp_path: Path) -> None:
    """The real child, stopped once its work folder exists: nothing is left in the models folder
    (the child, killed, could not remove its temporary folder: one per stdio process that ended
    while the model was being derived, a partial graph of up to ~90 MB in it)."""
    folder = tmp_path / "models"
    stop = threading.Event()
    seen: list[BaseException | Path | None] = []

    def derive() -> None:
        try:
            seen.append(quantize.int8_model(folder, shipped(), stop))
        except BaseException as exc:  # noqa: BLE001 - the test looks at it
            seen.append(exc)

    worker = threading.Thread(target=derive)
    worker.start()
    for _ in range(6000):  # until the derivation's work folder exists (or the derivation ended)
        if not worker.is_alive() or (folder.is_dir() and any(p.is_dir() for p in folder.iterdir())):
            break
        threading.Event().wait(0.02)
    stop.set()
    worker.join(120)
    assert not worker.is_alive() and len(seen) == 1 and isinstance(seen[0], quantize.Stopped), seen
    assert [p.name for p in folder.iterdir()] == []


def test_work_folders_of_a_killed_server_are_swept_when_old(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "models"
    for name in (".derive-old", "tmpold", ".derive-live", "tmplive"):
        (folder / name).mkdir(parents=True)
        (folder / name / "folded.onnx").write_bytes(b"x")
    for name in (".derive-old", "tmpold"):
        old = time.time() - 3 * quantize.TIMEOUT_S
        os.utime(folder / name, (old, old))
    killed = [sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"]
    monkeypatch.setattr(quantize, "_command", lambda source, target: killed)
    with pytest.raises(quantize.Stopped):
        quantize.int8_model(folder, shipped())
    assert sorted(p.name for p in folder.iterdir()) == [".derive-live", "tmplive"]  # another server's, live
