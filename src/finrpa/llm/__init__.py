"""FinRPA llm."""
