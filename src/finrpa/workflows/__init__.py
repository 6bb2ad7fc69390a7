"""FinRPA workflows."""
