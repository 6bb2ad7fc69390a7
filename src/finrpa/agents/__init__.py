"""FinRPA agents."""
