"""Freezing a process's start-up heap: once, after collecting the start-up's garbage (in a child process, so
this test process's own collector is left alone)."""

from __future__ import annotations

import subprocess
import sys

_SCRIPT = """
import gc
import weakref
from finrpa.kit.heap import freeze_startup_heap

class Cycle:
    def __init__(self):
        self.me = self

before = len(gc.get_objects())
garbage = weakref.ref(Cycle())  # unreachable, in a reference cycle: only the collector frees it
assert garbage() is not None
frozen = freeze_startup_heap()
assert garbage() is None, "the start-up's garbage was frozen instead of freed"
assert frozen > 1000 and gc.get_freeze_count() == frozen, frozen
assert len(gc.get_objects()) < before / 10, (len(gc.get_objects()), before)  # full passes scan only the rest
assert freeze_startup_heap() == 0  # once per process
print("ok", frozen)
"""


def test_the_start_up_heap_is_frozen_once_and_its_garbage_is_collected_first() -> None:
    done = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok ")
