"""FinRPA approvals."""
