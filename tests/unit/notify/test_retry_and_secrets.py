"""Backoff grows exponentially within its jitter and cap; secret references resolve only where allowed."""

from __future__ import annotations

import random

import pytest

from finrpa.notify.errors import SecretUnavailableError
from finrpa.notify.retry import BackoffPolicy
from finrpa.notify.secret_refs import ChainedSecretResolver, EnvironmentSecretResolver, resolve_value


def test_backoff_doubles_within_jitter_and_is_capped() -> None:
    policy = BackoffPolicy(initial_s=30, multiplier=2, max_s=600, max_attempts=8, jitter=0.2)
    rng = random.Random(7)
    for attempt, base in [(1, 30), (2, 60), (3, 120), (4, 240)]:
        delay = policy.delay_after(attempt, rng).total_seconds()
        assert base * 0.8 <= delay <= base * 1.2
    assert policy.delay_after(20, rng).total_seconds() <= 600
    assert not policy.exhausted(7)
    assert policy.exhausted(8)


async def test_environment_references_resolve_only_notify_variables() -> None:
    resolver = EnvironmentSecretResolver(
        {"FINRPA_NOTIFY_SECRET_HOOK": "test-hook-secret", "FINRPA_MASTER_KEY": "must-not-leak"}
    )
    assert await resolver.resolve("org-a", "secret://env/FINRPA_NOTIFY_SECRET_HOOK") == "test-hook-secret"
    with pytest.raises(SecretUnavailableError, match="FINRPA_NOTIFY_SECRET_") as refused:
        await resolver.resolve("org-a", "secret://env/FINRPA_MASTER_KEY")
    assert "must-not-leak" not in refused.value.message
    with pytest.raises(SecretUnavailableError, match="is not set"):
        await resolver.resolve("org-a", "secret://env/FINRPA_NOTIFY_SECRET_MISSING")


async def test_chain_reports_unknown_references_and_passes_literals_through() -> None:
    chain = ChainedSecretResolver([EnvironmentSecretResolver({})])
    with pytest.raises(SecretUnavailableError, match="No secret store knows"):
        await chain.resolve("org-a", "secret://vault/unknown")
    assert await resolve_value(chain, "org-a", "https://hooks.bank.example/") == "https://hooks.bank.example/"
