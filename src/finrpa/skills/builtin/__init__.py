"""The seven built-in skills of FinRPA; importing this package registers them."""
