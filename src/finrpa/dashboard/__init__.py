"""FinRPA dashboard."""
