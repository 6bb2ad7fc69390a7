"""Leaf helpers with no domain knowledge."""
