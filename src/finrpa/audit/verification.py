"""Recompute one organisation's hash chain and Merkle tree and compare them with the signed checkpoints.

The verifier reads rows in seq order and stops at the FIRST problem, saying which row and why:

* **modified** — a row's content no longer gives its ``row_hash``; or a row was re-hashed after a change
  (the next row still links to the old hash); or the rows no longer give a checkpoint's Merkle root;
* **deleted** — a gap in seq (rows missing), or rows renumbered to close the gap;
* **inserted** — a seq appears twice, rows were renumbered to make room, or a row links past its neighbour;
* **truncated** — fewer rows remain than a checkpoint covers (the newest rows were removed).

Rows after the newest checkpoint are *unanchored*: the chain protects them against edits in the middle,
but only the next checkpoint can protect them against being dropped from the end.
"""

from __future__ import annotations

import gc
import hashlib
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

from finrpa.audit.canonical import GENESIS_HASH, SORTED_FIELDS, canonical_row
from finrpa.audit.checkpoints import Checkpoint
from finrpa.audit.merkle import HASH_SIZE, LEAF_PREFIX, MerkleAccumulator

ProblemKind = Literal["modified", "deleted", "inserted", "truncated", "checkpoint"]
_WINDOW = 4  # rows remembered to recognise insertions and renumbering
_SEQ = SORTED_FIELDS.index("seq")
_ID = SORTED_FIELDS.index("id")
_PREV = SORTED_FIELDS.index("prev_hash")
_HASH = len(SORTED_FIELDS)  # rows carry their stored row_hash after the chained columns


@dataclass(frozen=True)
class Problem:
    kind: ProblemKind
    seq: int | None
    message: str


@dataclass
class ChainReport:
    """The outcome of verifying one organisation."""

    org_id: str
    rows: int = 0
    root_hash: str = ""
    last_row_hash: str = GENESIS_HASH
    checkpoint: Checkpoint | None = None
    checkpoints_checked: int = 0
    revoked_checkpoints: int = 0  # signed by a revoked key: not trusted, skipped
    problem: Problem | None = None
    leaves: list[bytes] = field(default_factory=list, repr=False)
    first_seq_checked: int = 1  # > 1: an incremental verify that trusted a checkpoint for the rows before it
    frontier: list[bytes] = field(default_factory=list, repr=False)  # of the tree of ``rows`` leaves
    worker_cpu_s: float = 0.0  # CPU time spent in worker processes (parallel verify)

    @property
    def ok(self) -> bool:
        return self.problem is None

    @property
    def unanchored_rows(self) -> int:
        return self.rows - (self.checkpoint.tree_size if self.checkpoint else 0)

    def summary(self) -> str:
        if self.problem is not None:
            where = f" at seq {self.problem.seq}" if self.problem.seq is not None else ""
            return f"FAILED org {self.org_id}: {self.problem.kind}{where}: {self.problem.message}"
        anchor = (
            f"matches the checkpoint of {self.checkpoint.tree_size} rows signed {self.checkpoint.issued_at} "
            f"by key {self.checkpoint.key_id}"
            if self.checkpoint
            else "no checkpoint yet"
        )
        skipped = (
            f"; {self.revoked_checkpoints} checkpoint(s) signed by a revoked key skipped"
            if self.revoked_checkpoints
            else ""
        )
        scope = (
            f" (incremental: rows from seq {self.first_seq_checked} checked, the earlier ones trusted from their "
            "signed checkpoint; `finrpa audit verify` without --incremental re-checks every row)"
            if self.first_seq_checked > 1
            else ""
        )
        return (
            f"OK org {self.org_id}: {self.rows} rows, root {self.root_hash[:16]}…, {anchor}; "
            f"{self.unanchored_rows} rows after the last checkpoint{skipped}{scope}"
        )


class ChainVerifier:
    """Feed it rows (column values in SORTED_FIELDS order, then row_hash) in (seq, id) order."""

    def __init__(
        self,
        org_id: str,
        checkpoints: Sequence[Checkpoint] = (),
        *,
        head_seq: int | None = None,
        keep_leaves: bool = False,
        resume_from: Checkpoint | None = None,
    ) -> None:
        """``resume_from``: a signature-checked checkpoint with a frontier; rows up to it are taken as verified
        and only the rows after it are fed (an incremental verify; ``keep_leaves`` then keeps only theirs)."""
        self.report = ChainReport(org_id=org_id)
        self._pending = sorted(checkpoints, key=lambda c: c.tree_size)
        self._head_seq = head_seq
        self._keep_leaves = keep_leaves
        self._tree = MerkleAccumulator()
        self._expected = 1
        self._window: deque[tuple[int, str]] = deque(maxlen=_WINDOW)
        self._anchored_size = 0
        if resume_from is not None:
            tree = resume_from.resumable_tree()
            if tree is None:
                raise ValueError(f"the checkpoint of {resume_from.tree_size} rows has no usable Merkle frontier")
            self._tree = tree
            self._expected = self.report.first_seq_checked = tree.size + 1
            self.report.last_row_hash = resume_from.last_row_hash
            self._window.append((tree.size, resume_from.last_row_hash))
            self._pending = [c for c in self._pending if c.tree_size > tree.size]
            self._anchor(resume_from)

    @property
    def next_seq(self) -> int:
        """The seq the next fed row must have."""
        return self._expected

    @property
    def pending_checkpoint_sizes(self) -> list[int]:
        return [checkpoint.tree_size for checkpoint in self._pending]

    def absorb(
        self, first_prev_hash: str, leaves: bytes, row_hashes: dict[int, str], tail: Sequence[tuple[int, str]]
    ) -> bool:
        """Take a run of rows already checked elsewhere (seq ``next_seq`` onwards, contiguous, each row's hash and
        its link to the row before it inside the run recomputed): check the link into the run and the checkpoints
        it reaches, and extend the tree with its leaves (32 bytes each). ``row_hashes`` holds the row hash at every
        pending checkpoint size inside the run, ``tail`` the (seq, row_hash) of its last rows.

        False means "re-check this chain row by row" (the caller does that to name the exact problem): the run
        does not link to the rows before it or a checkpoint does not match.
        """
        if self.report.problem is not None or first_prev_hash != self.report.last_row_hash or not tail:
            return False
        tree, pending, append_leaf = self._tree, self._pending, self._tree.append
        kept = self.report.leaves.append if self._keep_leaves else None
        for offset in range(0, len(leaves), HASH_SIZE):
            leaf = leaves[offset : offset + HASH_SIZE]
            append_leaf(leaf)
            if kept is not None:
                kept(leaf)
            if pending and pending[0].tree_size <= tree.size:
                self._expected, self.report.last_row_hash = tree.size + 1, row_hashes[tree.size]
                if not self._check_due_checkpoint():
                    return False
        if tail[-1][0] != tree.size:
            return False
        self._expected, self.report.last_row_hash = tree.size + 1, tail[-1][1]
        self._window.extend(tail)
        return True

    def feed(self, rows: Iterable[Sequence[Any]]) -> bool:
        """Check a batch; False once a problem is found (feed no more).

        The loop keeps its state in locals (this is the verifier's hot path); any doubt about a row sends it
        to :meth:`_diagnose`, which re-checks it step by step and names the problem.
        """
        if self.report.problem is not None:
            return False
        sha256, encode, leaf_prefix = hashlib.sha256, canonical_row, LEAF_PREFIX
        tree = self._tree
        append_leaf, remember = tree.append, self._window.append
        kept = self.report.leaves.append if self._keep_leaves else None
        pending = self._pending
        expected, last_hash = self._expected, self.report.last_row_hash
        try:
            for row in rows:
                canonical = encode(row)
                stored_hash = row[_HASH]
                if row[_SEQ] != expected or row[_PREV] != last_hash or sha256(canonical).hexdigest() != stored_hash:
                    self._expected, self.report.last_row_hash = expected, last_hash
                    return self._diagnose(row, canonical)
                leaf = sha256(leaf_prefix + canonical).digest()
                append_leaf(leaf)
                if kept is not None:
                    kept(leaf)
                remember((expected, stored_hash))
                last_hash = stored_hash
                expected += 1
                if pending and pending[0].tree_size <= tree.size:
                    self._expected, self.report.last_row_hash = expected, last_hash
                    if not self._check_due_checkpoint():
                        return False
        finally:
            if self.report.problem is None:
                self._expected, self.report.last_row_hash = expected, last_hash
        return True

    def finish(self) -> ChainReport:
        report = self.report
        report.rows = self._tree.size
        report.root_hash = self._tree.root().hex()
        report.frontier = self._tree.frontier()
        if report.problem is None:
            self._check_remaining_checkpoints()
        if report.problem is None:
            self._check_head()
        return report

    def _diagnose(self, row: Sequence[Any], canonical: bytes) -> bool:
        """The slow path for a row that failed a check: seq first, then content, then the link."""
        seq: int = row[_SEQ]
        if seq != self._expected:
            return self._fail(*self._seq_problem(seq, row[_ID]))
        stored_hash: str = row[_HASH]
        if hashlib.sha256(canonical).hexdigest() != stored_hash:
            return self._fail(*self._content_problem(row, stored_hash))
        return self._fail(*self._link_problem(seq, row[_PREV]))

    def _fail(self, kind: ProblemKind, seq: int | None, message: str) -> bool:
        self.report.problem = Problem(kind, seq, message)
        return False

    def _seq_problem(self, seq: int, row_id: str) -> tuple[ProblemKind, int, str]:
        if seq > self._expected:
            missing = f"{self._expected}" if seq == self._expected + 1 else f"{self._expected}..{seq - 1}"
            return "deleted", self._expected, f"rows with seq {missing} are missing (the next row is seq {seq})"
        return "inserted", seq, f"seq {seq} appears again (row {row_id}): a row was inserted into the chain"

    def _content_problem(self, values: Sequence[Any], stored_hash: str) -> tuple[ProblemKind, int, str]:
        seq: int = values[_SEQ]
        original = _original_seq(values, stored_hash)
        if original is not None and original < seq:
            return (
                "inserted",
                original,
                f"row seq {seq} was originally seq {original}; {seq - original} row(s) were inserted "
                f"before it and later rows renumbered",
            )
        if original is not None and original > seq:
            return (
                "deleted",
                seq,
                f"row seq {seq} was originally seq {original}; {original - seq} row(s) were deleted before "
                "it and later rows renumbered",
            )
        return "modified", seq, "the row's content no longer matches its row_hash (a column was changed)"

    def _link_problem(self, seq: int, prev_hash: str) -> tuple[ProblemKind, int, str]:
        earlier = list(self._window)
        for back in range(2, len(earlier) + 1):
            if earlier[-back][1] == prev_hash:
                first_inserted = earlier[-back + 1][0]
                return (
                    "inserted",
                    first_inserted,
                    f"row seq {seq} links to seq {earlier[-back][0]}: the row(s) from seq {first_inserted} "
                    "were inserted",
                )
        if seq == 1:
            return "modified", 1, "the first row does not start the chain (its prev_hash was changed)"
        return (
            "modified",
            seq - 1,
            f"row seq {seq - 1} was changed and re-hashed: row seq {seq} still links to its original hash",
        )

    def _check_due_checkpoint(self) -> bool:
        size = self._tree.size
        while self._pending and self._pending[0].tree_size <= size:
            checkpoint = self._pending.pop(0)
            if checkpoint.tree_size == size and not self._matches(checkpoint):
                return self._fail(
                    "modified",
                    self._anchored_size + 1,
                    f"rows 1..{size} no longer give the Merkle root signed in the checkpoint of "
                    f"{checkpoint.issued_at}: rows between seq {self._anchored_size + 1} and {size} were "
                    "changed, replaced or re-hashed",
                )
            self._anchor(checkpoint)
        return True

    def _matches(self, checkpoint: Checkpoint) -> bool:
        return self._tree.root().hex() == checkpoint.root_hash and self.report.last_row_hash == checkpoint.last_row_hash

    def _anchor(self, checkpoint: Checkpoint) -> None:
        self._anchored_size = checkpoint.tree_size
        self.report.checkpoint = checkpoint
        self.report.checkpoints_checked += 1

    def _check_remaining_checkpoints(self) -> None:
        if not self._pending:
            return
        largest = self._pending[-1]
        rows = self._tree.size
        self._fail(
            "truncated",
            rows + 1,
            f"the checkpoint of {largest.issued_at} covers {largest.tree_size} rows but only {rows} remain: "
            f"rows {rows + 1}..{largest.tree_size} were removed",
        )

    def _check_head(self) -> None:
        rows = self._tree.size
        if self._head_seq is None or self._head_seq == rows:
            return
        if self._head_seq > rows:
            self._fail(
                "truncated",
                rows + 1,
                f"the chain head records {self._head_seq} rows but only {rows} remain: the newest rows were removed",
            )
        else:
            self._fail(
                "inserted",
                self._head_seq + 1,
                f"rows after seq {self._head_seq} are not recorded in the chain head: they were inserted "
                "outside the audit service",
            )


_pauses = 0


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cycle collector while a chain streams through (reference counting still frees memory).

    Each batch creates thousands of short-lived row objects; with the collector on, they trigger repeated full
    collections that walk every object of the process and cost about a third of the verify time. Nested and
    concurrent pauses are counted, so the collector comes back when the last verification ends.
    """
    global _pauses
    if _pauses == 0 and not gc.isenabled():
        yield  # someone else switched it off; leave it alone
        return
    _pauses += 1
    gc.disable()
    try:
        yield
    finally:
        _pauses -= 1
        if _pauses == 0:
            gc.enable()


def _original_seq(values: Sequence[Any], stored_hash: str) -> int | None:
    """If the row is intact except for its seq, the seq it was hashed with (renumbering)."""
    seq: int = values[_SEQ]
    for shift in (1, -1, 2, -2, 3, -3):
        candidate = seq + shift
        if candidate < 1:
            continue
        trial = [*values[:_SEQ], candidate, *values[_SEQ + 1 :]]
        if hashlib.sha256(canonical_row(trial)).hexdigest() == stored_hash:
            return candidate
    return None
