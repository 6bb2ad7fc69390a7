"""FinRPA risk."""
