"""A vault's chunk vectors in a file beside the index, int8 codes in memory: the scan's layout
(`vectors.ScanCache`) from `[embeddings] scan_first_pass_rows` chunks when the index has a folder.

In memory a row costs its chunk id and its `codes.Small` code (8 + 128 bytes at 384 dimensions,
against 1,536 + 512 for the float32 row and float code the in-memory matrix holds). A query ranks
every row by its code, reads the float32 rows of the best estimates from the file (one `preadv`
a row) and rescores them exactly (`Rows.similarities`), so the answer is the exact top k whenever
the candidates hold it, as with the in-memory first pass. The file is read, not memory-mapped:
its pages stay in the kernel's page cache, never in the server's resident memory (a mapping
faulted whole large folios in, ~1 MB a row read, and took 14 ms to drop again per query).

Files, per (vault, model), in `<cache>/vectors/`:
- `<key>.<generation>.f32`: row n is the float32 vector of `ids[n]`; rows are only ever appended
  past the rows any snapshot or checkpoint counts, never changed in place.
- `<key>.npz`: the checkpoint: ids, codes (format 2: the leading and the other axes as two arrays,
  as `codes.Small` holds them; format 1's single array is still read), basis and steps, the rows
  counted, the generation, and the `chunk_changes` entry (`seq`) they reflect. Written to a
  temporary file, flushed and renamed over the previous one, after the rows it counts are flushed.
- `<key>.lock`: held (`flock`) by the process using the files. A second process on the same
  index does not get it and keeps its vectors in memory as before.

Crash safety: a process killed at any point leaves the last checkpoint and the rows it counts
intact (rows past them are ignored and overwritten). A compaction writes a new generation and
deletes the old file only once the checkpoint naming the new one is in place. The index's
`embeddings` table stays the source of truth: a restored checkpoint is brought up to date with
the change log like any snapshot, and one that cannot be read, names a missing or short file, or
whose sampled rows disagree with their codes (`restore`) is discarded and the file built again
from the index (`build`).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import os
import sqlite3
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from service.semantic import codes
from service.semantic.snapshot import REREAD_OVER, Damaged, changes, retire
from service.semantic.snapshot import Matrix as _Matrix

log = logging.getLogger(__name__)

Array = np.ndarray[Any, Any]
FORMAT = 2  # 1: the codes as one array (read, and written as 2 at the next checkpoint)
# Rows appended since the last checkpoint before a new one is written: at least this many, and
# 1/64 of the rows (a checkpoint writes every code: 82 MB at 600,000 chunks), but fewer than a
# restart could replay from the change log (`REREAD_OVER`).
CHECKPOINT_ROWS = 4096
CHECKPOINT_SHARE = 64
SAMPLED = 256  # rows compared with their codes when a checkpoint is restored
BLOCK = 8192  # rows read or written at a time


class VectorFile:
    """One generation's file of float32 rows, open for reading and appending. Closed when the
    last snapshot reading it is gone (a compaction's older snapshots still read the old one)."""

    def __init__(self, path: Path, dim: int, *, fresh: bool) -> None:
        self.path, self.dim = path, dim
        flags = os.O_RDWR | os.O_CREAT | (os.O_TRUNC if fresh else 0)
        self.fd = os.open(path, flags, 0o600)

    def __del__(self) -> None:
        with contextlib.suppress(OSError, AttributeError):
            os.close(self.fd)

    def size_rows(self) -> int:
        return os.fstat(self.fd).st_size // (4 * self.dim)

    def write(self, row: int, block: Array) -> None:
        data = memoryview(np.ascontiguousarray(block, dtype=np.float32).tobytes())
        at = row * 4 * self.dim
        while data:
            done = os.pwrite(self.fd, data, at)
            data, at = data[done:], at + done

    def sync(self) -> None:
        os.fsync(self.fd)

    def read(self, at: Array) -> Array:
        """Rows `at`, one `preadv` each straight into the result (no mapping: the pages stay in
        the kernel's page cache, not in the process; 3,200 rows of 600,000 take ~3 ms)."""
        size = 4 * self.dim
        out = np.empty((len(at), self.dim), dtype=np.float32)
        raw = out.data.cast("B")
        for n, row in enumerate(at.tolist()):
            if os.preadv(self.fd, [raw[n * size : (n + 1) * size]], row * size) != size:
                raise Damaged(f"row {row} is past the end of {self.path.name}")
        return out

    def read_range(self, start: int, stop: int) -> Array:
        out = np.empty((stop - start, self.dim), dtype=np.float32)
        want = out.nbytes
        if want and os.preadv(self.fd, [out.data.cast("B")], start * 4 * self.dim) != want:
            raise Damaged(f"rows {start}-{stop} are past the end of {self.path.name}")
        return out

    def rows(self, count: int) -> Rows:
        return Rows(self, count)


@dataclass(frozen=True)
class Rows:
    """A snapshot's rows: the file's first `count` (rows past them belong to newer snapshots)."""

    file: VectorFile
    count: int

    def shape_only(self) -> Array:
        """A (count, dim) array of zeros taking no memory: the snapshot's `vectors`, whose shape
        callers read (its rows are read through `similarities`)."""
        return np.broadcast_to(np.float32(0), (self.count, self.file.dim))

    def take(self, at: Array) -> Array:
        return self.file.read(at)

    def similarities(self, q: Array, at: Array | None = None) -> Array:
        """Similarities of rows `at` (all rows when None) to `q`, computed exactly."""
        if at is not None:
            sims: Array = np.einsum("ij,j->i", self.take(at), q)
            return sims
        out = np.empty(self.count, dtype=np.float32)
        for start in range(0, self.count, BLOCK):
            stop = min(self.count, start + BLOCK)
            out[start:stop] = np.einsum("ij,j->i", self.file.read_range(start, stop), q)
        return out


class Place:
    """The files of one (vault, model) and this process's hold on them (one thread at a time:
    `ScanCache` refreshes a key under its lock)."""

    def __init__(self, directory: Path, vault_id: str, model: str) -> None:
        digest = hashlib.blake2b(f"{vault_id}\x00{model}".encode(), digest_size=8).hexdigest()
        self.directory, self.key = directory, digest
        self.file: VectorFile | None = None
        self.generation = 0
        self.saved = (0, 0)  # (rows, seq) of the last checkpoint written or read
        self._lock: int | None = None

    @property
    def checkpoint_path(self) -> Path:
        return self.directory / f"{self.key}.npz"

    def data_path(self, generation: int) -> Path:
        return self.directory / f"{self.key}.{generation}.f32"

    def acquire(self) -> bool:
        """Hold the files for this process; False when another process holds them."""
        if self._lock is not None:
            return True
        self.directory.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.directory / f"{self.key}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return False
        self._lock = fd
        return True

    def release(self) -> None:
        self.file = None  # closed once no snapshot reads it
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def start(self, dim: int) -> VectorFile:
        """A new, empty generation, numbered past every file there (the current one stays until a
        checkpoint names the new one: `switch`)."""
        found = [self.generation]
        for other in self.directory.glob(f"{self.key}.*.f32"):
            with contextlib.suppress(ValueError):
                found.append(int(other.name.split(".")[1]))
        self.generation = max(found) + 1
        return VectorFile(self.data_path(self.generation), dim, fresh=True)

    def switch(self, file: VectorFile, generation: int) -> None:
        """Use `file` from now on (its checkpoint written, or about to be)."""
        self.file, self.generation = file, generation  # the previous one closes with its last snapshot

    def prune(self) -> None:
        """Delete every generation but the current one (once a checkpoint names it)."""
        for other in self.directory.glob(f"{self.key}.*.f32"):
            if other.name != self.data_path(self.generation).name:
                other.unlink(missing_ok=True)

    def discard(self) -> None:
        """Forget the checkpoint and every generation (damaged, or a read from scratch is asked)."""
        self.checkpoint_path.unlink(missing_ok=True)
        self.file = None
        for other in self.directory.glob(f"{self.key}.*.f32"):
            other.unlink(missing_ok=True)
        self.saved = (0, 0)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def checkpoint(place: Place, mat: _Matrix) -> None:
    """Write `mat`'s checkpoint (its rows flushed first), replacing the previous one atomically."""
    assert mat.small is not None and place.file is not None
    place.file.sync()
    tmp = place.checkpoint_path.with_suffix(".tmp")
    with open(tmp, "wb") as out:
        np.savez(
            out,
            format=np.int64(FORMAT),
            generation=np.int64(place.generation),
            seq=np.int64(mat.seq),
            dim=np.int64(mat.vectors.shape[1]),
            ids=mat.ids,
            dead=mat.dead,
            centre=mat.small.basis.centre,
            axes=mat.small.basis.axes,
            steps=mat.small.steps,
            lead=mat.small.lead,
            rest=mat.small.rest,
        )
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, place.checkpoint_path)
    _fsync_dir(place.directory)
    place.saved = (len(mat.ids), mat.seq)


def _assemble(
    version: int, seq: int, ids: Array, dead: Array, small: codes.Small, file: VectorFile, extra: int
) -> _Matrix:
    """A snapshot over the file's first `len(ids)` rows, its codes allocated `extra` rows ahead."""
    rows = file.rows(len(ids))
    store = codes.Small.empty(small.basis, small.steps, len(ids) + extra)
    store.lead[: len(ids)] = small.lead
    store.rest[: len(ids)] = small.rest
    shape = rows.shape_only()
    return _Matrix(version, seq, ids, shape, shape, dead, disk=rows, small=store.head(len(ids)), small_store=store)


def build(conn: sqlite3.Connection, place: Place, vault_id: str, model: str, version: int, seq: int) -> _Matrix:
    """Every vector of the vault's chunks written to a new generation from the index (`seq` read
    before the rows), coded, checkpointed; older generations deleted."""
    total = int(conn.execute("SELECT COUNT(*) FROM chunks WHERE vault_id = ?", (vault_id,)).fetchone()[0])
    ids = np.empty(total, dtype=np.int64)
    file: VectorFile | None = None
    buf: Array | None = None
    used = filled = 0
    for chunk_id, blob in conn.execute(
        "SELECT c.id, e.vector FROM embeddings e JOIN chunks c INDEXED BY chunks_by_vault_hash "
        "ON c.vault_id = ? AND c.hash = e.hash WHERE e.model = ?",
        (vault_id, model),
    ):
        if file is None or buf is None:
            file = place.start(len(blob) // 4)
            buf = np.empty((BLOCK, file.dim), dtype=np.float32)
        if used == len(ids):  # chunks added since the count
            ids = np.resize(ids, used * 2 + 64)
        buf[filled] = np.frombuffer(blob, dtype=np.float32)
        ids[used] = chunk_id
        used, filled = used + 1, filled + 1
        if filled == BLOCK:
            file.write(used - filled, buf)
            filled = 0
    if file is None or buf is None:
        file = place.start(1)
        buf = np.empty((0, 1), dtype=np.float32)
    if filled:
        file.write(used - filled, buf[:filled])
    basis, steps = _fit(file, used)
    small = codes.Small.empty(basis, steps, used)
    for start in range(0, used, BLOCK):
        stop = min(used, start + BLOCK)
        small.put(start, codes.small_of(file.read_range(start, stop), basis, steps))
    mat = _assemble(version, seq, ids[:used].copy(), np.zeros(0, dtype=np.int64), small, file, used // 8 + 64)
    place.switch(file, place.generation)
    checkpoint(place, mat)
    place.prune()
    return mat


def _fit(file: VectorFile, used: int) -> tuple[codes.Basis, Array]:
    """Basis and steps fitted on up to `codes.FIT_ROWS` rows spread evenly through the file."""
    if not used:
        return codes.fit(np.zeros((1, file.dim), dtype=np.float32)), np.ones(file.dim, dtype=np.float32)
    sample = np.arange(0, used, max(1, used // codes.FIT_ROWS))[: codes.FIT_ROWS]
    return codes.fit_small(file.read(sample))


def restore(place: Place, version: int, dim: int | None = None) -> _Matrix | None:
    """The snapshot the checkpoint holds (behind the index by the changes logged since its `seq`),
    None when there is none. A damaged one is deleted (with its files) and None returned."""
    if not place.checkpoint_path.exists():
        return None
    try:
        mat = _restore(place, version)
    except (Damaged, OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError) as exc:
        log.warning("vector file %s not usable (%s): building it again from the index", place.key, exc)
        place.discard()
        return None
    if dim is not None and mat.vectors.shape[1] != dim:
        place.discard()
        return None
    return mat


def _restore(place: Place, version: int) -> _Matrix:
    with open(place.checkpoint_path, "rb") as raw, np.load(raw, allow_pickle=False) as saved:
        parts = {name: saved[name] for name in saved.files}
    found = int(parts["format"])
    if found not in (1, FORMAT):
        raise Damaged(f"format {found}")
    generation, dim, ids = int(parts["generation"]), int(parts["dim"]), parts["ids"]
    lead, rest = codes.split(parts.pop("codes")) if found == 1 else (parts["lead"], parts["rest"])
    small = codes.Small(codes.Basis(parts["centre"], parts["axes"]), parts["steps"], lead, rest)
    axes = small.basis.axes.shape[1]
    if len(lead) != len(ids) or len(rest) != len(ids) or lead.shape[1] + rest.shape[1] != axes:
        raise Damaged("codes and ids disagree")
    if small.basis.axes.shape[0] != dim:
        raise Damaged("codes and basis disagree")
    if lead.shape[1] != min(axes, codes.COARSE_AXES):  # split elsewhere by an earlier version
        small = codes.Small.of(small.basis, small.steps, small.joined())
    file = VectorFile(place.data_path(generation), dim, fresh=False)
    if file.size_rows() < len(ids):
        raise Damaged(f"{file.size_rows()} rows in the file, {len(ids)} counted")
    mat = _assemble(version, int(parts["seq"]), ids, parts["dead"], small, file, len(ids) // 8 + 64)
    live = np.flatnonzero(ids >= 0)
    if len(live):
        sample = np.unique(np.concatenate([live[:: max(1, len(live) // SAMPLED)], live[-1:]]))
        recoded = codes.small_of(file.read(sample), small.basis, small.steps).astype(np.int16)
        if int(np.abs(recoded - small.joined(sample)).max()) > 1:
            raise Damaged("rows disagree with their codes")
    place.switch(file, generation)
    place.prune()
    place.saved = (len(ids), mat.seq)
    return mat


def update(conn: sqlite3.Connection, place: Place, old: _Matrix, vault_id: str, model: str, seq: int) -> _Matrix | None:
    """`old` brought up to `seq` (`vectors._updated` for the file): the rows of chunks changed
    since are retired, their current vectors appended to the file and coded with `old`'s basis.
    Many retired rows: the live ones are copied to a new generation. None: read from scratch."""
    assert old.small is not None and old.small_store is not None and old.disk is not None
    found = changes(conn, old, vault_id, model, seq)
    if found is None or place.file is None:
        return None
    changed, vectors = found
    if not changed:
        return _Matrix(old.version, seq, old.ids, old.vectors, old.store, old.dead, **_disk_fields(old))
    dim = old.vectors.shape[1]
    if any(len(v) != 4 * dim for v in vectors.values()):
        return None
    ids, dead = retire(old.ids, old.dead, changed)
    new_ids = np.array(sorted(vectors), dtype=np.int64)
    added = np.array([np.frombuffer(vectors[i], dtype=np.float32) for i in new_ids.tolist()], dtype=np.float32)
    added = added.reshape(len(new_ids), dim)
    basis, steps = old.small.basis, old.small.steps
    new_codes = codes.small_of(added, basis, steps)
    file, used = place.file, len(ids)
    if len(dead) > max(1024, (used + len(new_ids)) // 4):  # compact into a new generation
        keep = np.flatnonzero(ids >= 0)
        file = place.start(dim)
        for start in range(0, len(keep), BLOCK):
            file.write(start, old.disk.take(keep[start : start + BLOCK]))
        ids, dead, used = ids[keep], np.zeros(0, dtype=np.int64), len(keep)
        file.write(used, added)
        both = codes.Small.empty(basis, steps, used + len(new_ids))
        both.lead[:used], both.rest[:used] = old.small.lead[keep], old.small.rest[keep]
        both.put(used, new_codes)
        mat = _assemble(old.version, seq, np.concatenate([ids, new_ids]), dead, both, file, (used + len(new_ids)) // 8)
        place.switch(file, place.generation)
        checkpoint(place, mat)
        place.prune()
        return mat
    file.write(used, added)
    store = old.small_store
    if used + len(new_ids) > len(store):
        store = codes.Small.empty(basis, steps, int((used + len(new_ids)) * 1.125) + 64)
        store.lead[:used], store.rest[:used] = old.small.lead, old.small.rest
    store.put(used, new_codes)
    rows = file.rows(used + len(new_ids))
    small = store.head(used + len(new_ids))
    shape = rows.shape_only()
    mat = _Matrix(
        old.version, seq, np.concatenate([ids, new_ids]), shape, shape, dead, disk=rows, small=small, small_store=store
    )
    every = min(REREAD_OVER // 2, max(CHECKPOINT_ROWS, len(mat.ids) // CHECKPOINT_SHARE))
    if len(mat.ids) - place.saved[0] >= every or seq - place.saved[1] >= REREAD_OVER // 2:
        checkpoint(place, mat)
    return mat


def _disk_fields(mat: _Matrix) -> dict[str, Any]:
    return {"disk": mat.disk, "small": mat.small, "small_store": mat.small_store}
