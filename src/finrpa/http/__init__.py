"""Shared pieces of FinRPA's HTTP API: problem documents, the request's caller and unit of work, cursors,
the Idempotency-Key store, Server-Sent Events, metrics, health checks and the embedded run worker.

Routers live in their domains (``finrpa.<domain>.router``); :mod:`finrpa.api` assembles them and maps errors
to RFC 9457 problem documents in one place.
"""
