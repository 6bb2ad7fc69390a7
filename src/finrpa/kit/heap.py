"""Keeping the cycle collector's full passes short in processes that execute runs.

A worker imports and builds a few hundred thousand long-lived objects (modules, classes, validators, ORM mappings,
the browser driver's protocol tables) before it executes anything. CPython's full collection scans every tracked
object each time enough new long-lived objects have accumulated, with the event loop stopped: 100-140 ms in the
middle of a run's step on the benchmark machine (two such pauses in four plain runs of one template, out of runs of
about a second). Moving what exists once the process is set up into the permanent generation (``gc.freeze()``)
leaves full collections only the objects created since: 280,000 tracked objects became 49,000 and a full pass 7-12
ms (``bench/bench_templates.py``).

Frozen objects are still freed by reference counting when nothing refers to them; only reference cycles among them
would outlive their use. What exists at start-up lives as long as the process, so the freeze is done once, by the
entry points that execute runs (worker, API with its embedded worker, ``finrpa run`` / ``finrpa demo``), never by a
library call.
"""

from __future__ import annotations

import gc

_frozen = False


def freeze_startup_heap() -> int:
    """Collect the start-up's garbage, then freeze every object that is left (once per process). Returns how many
    objects were frozen, 0 when the process had already done it."""
    global _frozen
    if _frozen:
        return 0
    gc.collect()  # the start-up's own garbage is freed, not frozen
    gc.freeze()
    _frozen = True
    return gc.get_freeze_count()
