"""FinRPA runs."""
