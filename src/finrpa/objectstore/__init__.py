"""FinRPA objectstore."""
