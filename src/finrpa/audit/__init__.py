"""Audit trail and evidence (SPEC §C12): append-only, masked, hash-chained rows with signed checkpoints.

Entry points: :class:`finrpa.audit.service.AuditService` (append inside the caller's transaction, search,
screenshot links, value checks, verify, checkpoint), :func:`finrpa.audit.export.export_evidence` and
:func:`finrpa.audit.offline.verify_export`, :func:`finrpa.audit.proofs.prove_row`, and the generic
:class:`finrpa.audit.sanitizer.Sanitizer`. ``finrpa audit …`` (:mod:`finrpa.audit.commands`) wraps them.
"""
