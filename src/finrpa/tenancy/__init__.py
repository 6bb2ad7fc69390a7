"""FinRPA tenancy."""
