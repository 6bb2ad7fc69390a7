"""Runs: the run record, its append-only event log, checkpoints and the effect ledger."""
