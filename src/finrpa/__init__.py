"""FinRPA: AI browser automation for financial institutions, under maker-checker, audit and cost control."""

__version__ = "0.1.0"
