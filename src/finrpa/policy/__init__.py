"""FinRPA policy."""
