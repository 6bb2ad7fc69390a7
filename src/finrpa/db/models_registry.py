"""Imports every domain's models so that ``Base.metadata`` is complete (for Alembic and tests)."""

from __future__ import annotations

import importlib
import pkgutil

from sqlalchemy import MetaData

import finrpa
from finrpa.db.base import Base


def load_all_models() -> MetaData:
    """Import ``finrpa.<domain>.models`` for every domain package that has one."""
    for module in pkgutil.iter_modules(finrpa.__path__):
        if module.ispkg and importlib.util.find_spec(f"finrpa.{module.name}.models") is not None:
            importlib.import_module(f"finrpa.{module.name}.models")
    return Base.metadata
