"""FinRPA vault."""
