"""Database layer: declarative base, async engines and sessions, migrations."""
