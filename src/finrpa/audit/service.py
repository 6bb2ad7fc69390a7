"""The audit service: append rows inside the caller's transaction, search, issue evidence links, check values,
verify chains and write signed checkpoints.

Services never commit: :meth:`AuditService.append` runs inside the caller's unit of work, so an audit row
and the state change it records commit or roll back together. Appends of one organisation are serialised
by locking its chain head row (PostgreSQL row lock; SQLite's writer lock), so ``seq`` is contiguous and the
hash chain never forks, whatever the concurrency.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Mapping, Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.audit.canonical import SORTED_FIELDS, canonical_json, canonical_row, hash_bytes
from finrpa.audit.checkpoints import (
    Checkpoint,
    CheckpointStore,
    DirectoryCheckpointStore,
    ObjectStoreCheckpointStore,
    SignedCheckpoint,
    sign_checkpoint,
)
from finrpa.audit.events import ACTION_TYPE_PATTERN, AuditEntry, EventType, Phase, ScreenshotInput
from finrpa.audit.keyring import (
    KeyEntry,
    Keyring,
    initial_keyring,
    keyring_bytes,
    parse_keyring,
    private_key,
    revoke,
    rotate,
)
from finrpa.audit.keys import SigningKey, org_value_key, raw_value_hash, raw_value_matches, signing_key
from finrpa.audit.masking import PROFILES, STRICT, MaskingProfile
from finrpa.audit.models import AuditRecord
from finrpa.audit.parallel import RangeTask, caller_state, default_workers, run_ranges, split
from finrpa.audit.repository import AuditRepository, ChainHead, RecordFilter
from finrpa.audit.sanitizer import Sanitizer
from finrpa.audit.schemas import AuditPage, AuditQuery, AuditRecordView, IssuedLink, decode_cursor, encode_cursor
from finrpa.audit.verification import ChainReport, ChainVerifier, Problem, collector_paused
from finrpa.config import Settings
from finrpa.db.base import new_id, utcnow
from finrpa.exceptions import ConflictError, NotFoundError, ValidationFailedError
from finrpa.objectstore.factory import object_store_from_settings
from finrpa.objectstore.layout import screenshot_key
from finrpa.objectstore.port import ObjectStore, StoredObject

_MAX_EXECUTOR = 80
_MAX_RESULT = 64
logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class AppendedRecord:
    """What an append produced: the row's id, its place in the chain and its hash."""

    id: str
    org_id: str
    seq: int
    row_hash: str
    created_at: datetime


class AuditService:
    """The one way to write, read and check the audit trail."""

    def __init__(
        self,
        *,
        audit_key: bytes,
        objects: ObjectStore,
        checkpoints: CheckpointStore,
        storage_profile: MaskingProfile = STRICT,
        link_ttl_s: int = 3600,
        export_max_rows: int = 100_000,
        verify_workers: int | None = None,
        verify_parallel_min_rows: int = 40_000,
    ) -> None:
        """``verify_workers``: processes that verify a long PostgreSQL chain (default: up to 4, one per core; 1
        verifies in this process only); chains shorter than ``verify_parallel_min_rows`` are verified here."""
        self._audit_key = audit_key
        self.objects = objects
        self.checkpoints = checkpoints
        self._sanitizer = Sanitizer(storage_profile)
        self.link_ttl_s = link_ttl_s
        self.export_max_rows = export_max_rows
        self.signing = signing_key(audit_key)
        self.verify_workers = default_workers() if verify_workers is None else verify_workers
        self.verify_parallel_min_rows = verify_parallel_min_rows

    @classmethod
    def from_settings(cls, settings: Settings) -> AuditService:
        objects = object_store_from_settings(settings)
        checkpoints: CheckpointStore
        if settings.audit_checkpoint_bucket:
            checkpoints = ObjectStoreCheckpointStore(objects, settings.audit_checkpoint_bucket)
        else:
            checkpoints = DirectoryCheckpointStore(
                settings.audit_checkpoint_dir or settings.data_dir / "audit-checkpoints"
            )
        return cls(
            audit_key=settings.key("audit_key"),
            objects=objects,
            checkpoints=checkpoints,
            storage_profile=PROFILES[settings.audit_masking_profile],
            link_ttl_s=settings.audit_link_ttl_s,
            export_max_rows=settings.audit_export_max_rows,
        )

    # -- writing -------------------------------------------------------------------------------------

    async def store_screenshot(
        self,
        org_id: str,
        task_id: str | None,
        action_index: int | None,
        phase: Phase,
        png: bytes,
        *,
        bucket: str | None = None,
    ) -> StoredObject:
        """Store a screenshot under ``audit/{org}/{task}/{index}_{phase}_{uuid}.png`` (this month's bucket)."""
        key = screenshot_key(org_id, task_id, action_index, phase)
        if bucket is None:
            bucket, key = self.objects.placement(key, utcnow())
        return await self.objects.put(key, png, "image/png", bucket=bucket)

    async def append(self, session: AsyncSession, entry: AuditEntry) -> AppendedRecord:
        """Append one row in the caller's transaction (does not commit)."""
        return (await self.append_many(session, [entry]))[0]

    async def append_many(self, session: AsyncSession, entries: Sequence[AuditEntry]) -> list[AppendedRecord]:
        """Append rows of ONE organisation in order, under one lock of its chain head (does not commit)."""
        if not entries:
            return []
        org_id = entries[0].org_id
        if any(entry.org_id != org_id for entry in entries):
            raise ValidationFailedError("append_many takes rows of one organisation; append others separately.")
        prepared = [await self._prepare(entry) for entry in entries]  # uploads happen before the lock
        repository = AuditRepository(session)
        now = utcnow()
        head = await repository.lock_chain_head(org_id, now)
        rows: list[dict[str, Any]] = []
        for values in prepared:
            values["seq"] = head.seq + 1
            values["prev_hash"] = head.row_hash
            values["created_at"] = now
            values["row_hash"] = hash_bytes(canonical_row([values[name] for name in SORTED_FIELDS]))
            head = ChainHead(seq=values["seq"], row_hash=values["row_hash"])
            rows.append(values)
        await repository.append_rows(org_id, rows, head, now)
        return [AppendedRecord(r["id"], org_id, r["seq"], r["row_hash"], r["created_at"]) for r in rows]

    async def _prepare(self, entry: AuditEntry) -> dict[str, Any]:
        _validate(entry)
        before, after = await self._screenshots(entry)
        sanitize = self._sanitizer
        input_value = sanitize.sanitize(entry.input_value, key=entry.target_element)
        raw_hash = None
        if entry.raw_value is not None:
            raw_hash = raw_value_hash(org_value_key(self._audit_key, entry.org_id), entry.raw_value)
        return {
            "id": new_id(),
            "org_id": entry.org_id,
            "task_id": entry.task_id,
            "dept_id": entry.dept_id,
            "bl_id": entry.bl_id,
            "user_id": entry.user_id,
            "action_index": entry.action_index,
            "action_type": entry.action_type,
            "target_element": None if entry.target_element is None else sanitize.sanitize_text(entry.target_element),
            "input_value": None if input_value is None else canonical_json(input_value),
            "input_value_raw_hash": raw_hash,
            "screenshot_bucket": _bucket_of(before, after),
            "screenshot_before_key": before.key if before else None,
            "screenshot_before_sha256": before.sha256 if before else None,
            "screenshot_after_key": after.key if after else None,
            "screenshot_after_sha256": after.sha256 if after else None,
            "has_approval": entry.has_approval,
            "approval_id": entry.approval_id,
            "approver_user_id": entry.approver_user_id,
            "executor": entry.executor,
            "duration_ms": entry.duration_ms,
            "execution_result": entry.execution_result,
            "details": None if entry.details is None else canonical_json(sanitize.sanitize(dict(entry.details))),
        }

    async def _screenshots(self, entry: AuditEntry) -> tuple[StoredObject | None, StoredObject | None]:
        before = await self._screenshot(entry, "before", entry.screenshot_before, None)
        after = await self._screenshot(entry, "after", entry.screenshot_after, before.bucket if before else None)
        if before and after and before.bucket != after.bucket:
            raise ValidationFailedError(
                "The before and after screenshots of one action must be in the same bucket; store the after "
                "screenshot with bucket=<the before screenshot's bucket>."
            )
        return before, after

    async def _screenshot(
        self, entry: AuditEntry, phase: Phase, value: ScreenshotInput, bucket: str | None
    ) -> StoredObject | None:
        if value is None or isinstance(value, StoredObject):
            return value
        return await self.store_screenshot(entry.org_id, entry.task_id, entry.action_index, phase, value, bucket=bucket)

    # -- reading -------------------------------------------------------------------------------------

    async def search(
        self, session: AsyncSession, org_id: str, query: AuditQuery, *, profile: MaskingProfile = STRICT
    ) -> AuditPage:
        """Rows of ``org_id`` matching ``query``, newest first, masked with the viewer's ``profile``."""
        criteria = _criteria(query)
        records = await AuditRepository(session).search(org_id, criteria, query.limit + 1)
        sanitizer = Sanitizer(profile)
        items = [AuditRecordView.of(record, sanitizer) for record in records[: query.limit]]
        next_cursor = encode_cursor(items[-1].seq) if len(records) > query.limit else None
        return AuditPage(items=items, next_cursor=next_cursor)

    async def get(
        self, session: AsyncSession, org_id: str, seq: int, *, profile: MaskingProfile = STRICT
    ) -> AuditRecordView:
        return AuditRecordView.of(await self._record(session, org_id, seq), Sanitizer(profile))

    async def _record(self, session: AsyncSession, org_id: str, seq: int) -> AuditRecord:
        record = await AuditRepository(session).by_seq(org_id, seq)
        if record is None:
            raise NotFoundError(f"There is no audit row {seq} in this organisation.")
        return record

    async def issue_screenshot_link(
        self,
        session: AsyncSession,
        org_id: str,
        seq: int,
        phase: Phase,
        *,
        issued_to: str,
        expires_s: int | None = None,
    ) -> IssuedLink:
        """An expiring link to a row's screenshot; the issuing itself is appended as a LINK_ISSUED row."""
        record = await self._record(session, org_id, seq)
        key = record.screenshot_before_key if phase == "before" else record.screenshot_after_key
        if key is None or record.screenshot_bucket is None:
            raise NotFoundError(f"Audit row {seq} has no {phase} screenshot.")
        ttl = expires_s or self.link_ttl_s
        url = await self.objects.presign_get(key, bucket=record.screenshot_bucket, expires_s=ttl)
        expires_at = utcnow() + timedelta(seconds=ttl)
        details = {"seq": seq, "phase": phase, "expires_s": ttl}
        await self.append(session, _event(record, EventType.LINK_ISSUED, issued_to, details))
        return IssuedLink(url=url, expires_at=expires_at, seq=seq, phase=phase)

    async def check_value(
        self, session: AsyncSession, org_id: str, seq: int, candidate: str, *, checked_by: str
    ) -> bool:
        """Whether ``candidate`` is the raw value behind row ``seq``; the check itself is audited (not the value)."""
        record = await self._record(session, org_id, seq)
        if record.input_value_raw_hash is None:
            raise NotFoundError(f"Audit row {seq} has no raw-value hash to check against.")
        matches = raw_value_matches(org_value_key(self._audit_key, org_id), candidate, record.input_value_raw_hash)
        details = {"seq": seq, "matched": matches}
        await self.append(session, _event(record, EventType.VALUE_CHECKED, checked_by, details))
        return matches

    # -- integrity -----------------------------------------------------------------------------------

    async def verify(
        self, session: AsyncSession, org_id: str, *, keep_leaves: bool = False, incremental: bool = False
    ) -> ChainReport:
        """Recompute ``org_id``'s chain and tree and compare them with every signed checkpoint.

        ``incremental``: trust the newest signature-checked checkpoint that carries a Merkle frontier and check
        only the rows after it (linked to its last row hash, extending its tree); without such a checkpoint, or
        by default, every row is checked. On PostgreSQL a long chain is checked by several processes over
        contiguous seq ranges (see :mod:`finrpa.audit.parallel`); a chain that does not verify is then checked
        again row by row, so the report names the same first bad row either way.
        """
        checkpoints, revoked, problem = await self._load_checkpoints(org_id)
        repository = AuditRepository(session)
        head = await repository.chain_head(org_id)
        resume = _newest_resumable(checkpoints) if incremental and problem is None else None

        def new_verifier() -> ChainVerifier:
            verifier = ChainVerifier(
                org_id, checkpoints, head_seq=head.seq if head else None, keep_leaves=keep_leaves, resume_from=resume
            )
            verifier.report.revoked_checkpoints = revoked
            if problem is not None:
                verifier.report.problem = problem
            return verifier

        verifier = new_verifier()
        if problem is None:
            with collector_paused():
                outcome = await self._verify_in_parallel(session, org_id, verifier)
            if outcome is True:
                return verifier.finish()
            if outcome is False:
                verifier = new_verifier()
        after = resume.tree_size if resume is not None else None
        with collector_paused():
            async with contextlib.aclosing(repository.chain_batches(org_id, after_seq=after)) as batches:
                async for batch in batches:
                    if not verifier.feed(batch):
                        break
        return verifier.finish()

    async def _verify_in_parallel(self, session: AsyncSession, org_id: str, verifier: ChainVerifier) -> bool | None:
        """True: verified clean in parallel; False: something is wrong (re-check row by row); None: not tried
        (not PostgreSQL, a short chain, one worker)."""
        workers = self.verify_workers
        connection = await session.connection()
        if workers < 2 or connection.dialect.name != "postgresql" or connection.dialect.driver != "asyncpg":
            return None
        if not AuditRepository.context_sees(org_id):
            return None
        raw: Any = (await connection.get_raw_connection()).driver_connection
        low = verifier.next_seq
        bounds = await raw.fetchrow(
            "SELECT min(seq) AS low, max(seq) AS high FROM audit_records WHERE org_id = $1 AND seq > $2",
            org_id,
            low - 1 if low > 1 else -(2**63),
        )
        if bounds["high"] is None or bounds["high"] - low + 1 < self.verify_parallel_min_rows:
            return None
        if bounds["low"] != low:
            return False
        dsn = connection.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
        caller = await caller_state(raw, dsn)
        if caller is None:
            return None
        sizes = tuple(verifier.pending_checkpoint_sizes)
        tasks = [
            RangeTask(caller, org_id, first, last, tuple(size for size in sizes if first <= size <= last))
            for first, last in split(low, bounds["high"], workers * 2)
        ]
        try:
            results = await run_ranges(tasks, workers, lambda: raw.fetchval("SELECT 1"))
        except (BrokenProcessPool, OSError) as exc:  # a worker could not start or died: verify here instead
            logger.warning("audit.parallel_verify_failed", extra={"org_id": org_id, "error": f"{type(exc).__name__}"})
            return False
        verifier.report.worker_cpu_s = sum(result.cpu_s for result in results)
        for result in results:
            joined = result.ok and verifier.absorb(
                result.first_prev_hash, result.leaves, result.row_hashes, result.tail
            )
            if not joined:
                return False
        return True

    async def verify_all(self, session: AsyncSession, *, incremental: bool = False) -> list[ChainReport]:
        """Every organisation with rows, a chain head or a checkpoint (needs a cross-organisation context)."""
        orgs = set(await AuditRepository(session).org_ids()) | set(await self.checkpoints.org_ids())
        return [await self.verify(session, org_id, incremental=incremental) for org_id in sorted(orgs)]

    async def checkpoint(
        self, session: AsyncSession, org_id: str, *, incremental: bool = False
    ) -> SignedCheckpoint | None:
        """Verify (only the rows after the newest resumable checkpoint when ``incremental``), then sign and store a
        checkpoint of the current tree (None when there are no rows)."""
        report = await self.verify(session, org_id, incremental=incremental)
        return await self.checkpoint_from(report)

    async def checkpoint_from(self, report: ChainReport) -> SignedCheckpoint | None:
        if not report.ok:
            raise ConflictError(
                f"Refusing to sign a checkpoint: {report.summary()} Investigate before checkpointing again."
            )
        if report.rows == 0:
            return None
        key = await self.active_key()
        checkpoint = Checkpoint(
            org_id=report.org_id,
            tree_size=report.rows,
            root_hash=report.root_hash,
            last_row_hash=report.last_row_hash,
            issued_at=datetime.now(UTC).isoformat(timespec="seconds"),
            key_id=key.key_id,
            frontier=tuple(node.hex() for node in report.frontier),
        )
        signed = sign_checkpoint(checkpoint, key)
        await self.checkpoints.write(signed, key.public_pem())
        return signed

    # -- signing keys ----------------------------------------------------------------------------------

    async def keyring(self) -> Keyring:
        """The keyring in force (the implicit one-key ring until the first rotation)."""
        content = await self.checkpoints.load_keyring()
        if content is None:
            return initial_keyring(self._audit_key)
        try:
            return parse_keyring(content, self._audit_key)
        except ValueError as exc:
            raise ConflictError(f"{exc} Restore the keyring from a backup before signing or verifying.") from exc

    async def active_key(self) -> SigningKey:
        ring = await self.keyring()
        return private_key(ring.active, self._audit_key)

    async def rotate_key(self) -> KeyEntry:
        """Make a fresh key active; the old one keeps verifying its checkpoints. Returns the new key's entry."""
        ring = rotate(await self.keyring(), self._audit_key)
        await self.checkpoints.save_keyring(ring.version, keyring_bytes(ring, self._audit_key))
        return ring.active

    async def revoke_key(self, key_id: str) -> Keyring:
        """Stop trusting ``key_id`` (not the active key): checkpoints it signed are skipped from now on."""
        try:
            ring = revoke(await self.keyring(), key_id)
        except ValueError as exc:
            raise ValidationFailedError(str(exc)) from exc
        await self.checkpoints.save_keyring(ring.version, keyring_bytes(ring, self._audit_key))
        return ring

    async def _load_checkpoints(self, org_id: str) -> tuple[list[Checkpoint], int, Problem | None]:
        """The checkpoints of ``org_id`` signed by a trusted key, how many a revoked key signed, or a problem."""
        try:
            ring = await self.keyring()
        except ConflictError as exc:
            return [], 0, Problem("checkpoint", None, exc.message)
        trusted = ring.trusted()
        valid: list[Checkpoint] = []
        revoked = 0
        for location, content in await self.checkpoints.load(org_id):
            try:
                signed = SignedCheckpoint.from_json(content)
            except ValueError as exc:
                return valid, revoked, Problem("checkpoint", None, f"{location} cannot be read: {exc}")
            key_id = signed.checkpoint.key_id
            entry = ring.entry(key_id)
            public = trusted.get(key_id)
            if public is None and entry is not None and entry.status == "revoked":
                revoked += 1
                continue
            if public is None or not signed.signed_by(public) or signed.checkpoint.org_id != org_id:
                return (
                    valid,
                    revoked,
                    Problem(
                        "checkpoint",
                        None,
                        f"{location} does not carry a valid signature of one of this installation's audit keys for "
                        f"organisation {org_id} (it names key {key_id}): the checkpoint was altered or forged",
                    ),
                )
            valid.append(signed.checkpoint)
        return valid, revoked, None


def _newest_resumable(checkpoints: Sequence[Checkpoint]) -> Checkpoint | None:
    """The largest checkpoint an incremental verify can continue from (signature-checked by the caller)."""
    for checkpoint in sorted(checkpoints, key=lambda c: c.tree_size, reverse=True):
        if checkpoint.resumable_tree() is not None:
            return checkpoint
    return None


def _bucket_of(before: StoredObject | None, after: StoredObject | None) -> str | None:
    stored = before or after
    return stored.bucket if stored else None


def _validate(entry: AuditEntry) -> None:
    if not ACTION_TYPE_PATTERN.match(entry.action_type):
        raise ValidationFailedError(
            f"{entry.action_type!r} is not an audit action type; use an upper-case word such as CLICK or LOGIN."
        )
    if not entry.executor or len(entry.executor) > _MAX_EXECUTOR:
        raise ValidationFailedError("executor must be 'agent' or 'human:<user id>' (at most 80 characters).")
    if not entry.execution_result or len(entry.execution_result) > _MAX_RESULT:
        raise ValidationFailedError(
            "execution_result must be a short outcome code (at most 64 characters); put messages in details."
        )


def _event(record: AuditRecord, event: EventType, actor: str, details: Mapping[str, object]) -> AuditEntry:
    return AuditEntry(
        org_id=record.org_id,
        action_type=event.value,
        executor=f"human:{actor}",
        user_id=actor,
        task_id=record.task_id,
        dept_id=record.dept_id,
        bl_id=record.bl_id,
        details=details,
    )


def _criteria(query: AuditQuery) -> RecordFilter:
    return RecordFilter(
        task_id=query.task_id,
        user_id=query.user_id,
        dept_id=query.dept_id,
        action_types=tuple(query.action_types) if query.action_types else None,
        since=query.since,
        until=query.until,
        before_seq=decode_cursor(query.cursor) if query.cursor else None,
    )
