"""FinRPA skills."""
