"""FinRPA sandbox."""
