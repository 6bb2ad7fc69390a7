"""FinRPA identity."""
