"""The vault's name for :mod:`finrpa.kit.secret_text` (one SecretText type across FinRPA)."""

from finrpa.kit.secret_text import MASK, SecretText

__all__ = ["MASK", "SecretText"]
