"""Small helpers for futures the caller does not await itself."""

from __future__ import annotations

import asyncio
from typing import Any


def retrieved(future: asyncio.Future[Any]) -> None:
    """Done-callback marking a background future's failure as seen: whoever awaits it still gets the exception,
    and one nobody awaits leaves no "exception was never retrieved" in the event loop's log."""
    if not future.cancelled():
        future.exception()


def drop(future: asyncio.Future[Any]) -> None:
    """Cancel a future no longer wanted; its outcome, whatever it is, is nobody's concern."""
    future.cancel()
    future.add_done_callback(retrieved)
