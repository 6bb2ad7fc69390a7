"""FinRPA audit."""
