"""FinRPA notify."""
