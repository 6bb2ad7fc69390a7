"""FinRPA mcp."""
