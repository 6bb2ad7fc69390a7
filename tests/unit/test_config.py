from __future__ import annotations

import pytest

from finrpa.config import Settings, get_settings, normalize_database_url
from finrpa.exceptions import ConfigurationError

STRONG = "k" * 8 + "Q2x9vT3mZ8pL4rW7sY1uN6bE5cH0jD"


def test_production_refuses_default_secret_and_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FINRPA_ENV", "production")
    monkeypatch.setenv("FINRPA_SECRET_KEY", "changeme")
    monkeypatch.setenv("FINRPA_MASTER_KEY", STRONG)
    monkeypatch.setenv("FINRPA_AUDIT_KEY", STRONG)
    get_settings.cache_clear()
    with pytest.raises(ConfigurationError) as caught:
        get_settings()
    assert "FINRPA_SECRET_KEY" in caught.value.message
    assert "changeme" not in caught.value.message


def test_production_refuses_missing_master_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FINRPA_ENV", "production")
    monkeypatch.setenv("FINRPA_SECRET_KEY", STRONG)
    monkeypatch.delenv("FINRPA_MASTER_KEY", raising=False)
    monkeypatch.setenv("FINRPA_AUDIT_KEY", STRONG)
    get_settings.cache_clear()
    with pytest.raises(ConfigurationError, match="FINRPA_MASTER_KEY"):
        get_settings()


def test_production_accepts_strong_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("FINRPA_SECRET_KEY", "FINRPA_MASTER_KEY", "FINRPA_AUDIT_KEY"):
        monkeypatch.setenv(name, STRONG)
    settings = Settings(env="production")
    assert settings.key("secret_key") == STRONG.encode()


def test_development_generates_a_stable_key_per_data_folder(tmp_path) -> None:  # type: ignore[no-untyped-def]
    first = Settings(env="development", data_dir=tmp_path)
    second = Settings(env="development", data_dir=tmp_path)
    other = Settings(env="development", data_dir=tmp_path / "other")
    assert first.key("master_key") == second.key("master_key")
    assert first.key("master_key") != other.key("master_key")
    assert (tmp_path / "keys" / "master_key").stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("postgresql://u@h/db", "postgresql+asyncpg://u@h/db"),
        ("postgres://u@h/db", "postgresql+asyncpg://u@h/db"),
        ("sqlite:///x.db", "sqlite+aiosqlite:///x.db"),
        ("postgresql+asyncpg://u@h/db", "postgresql+asyncpg://u@h/db"),
    ],
)
def test_database_urls_are_normalised_to_async_drivers(given: str, expected: str) -> None:
    assert normalize_database_url(given) == expected
