"""FinRPA settings: one pydantic-settings model read from ``FINRPA_*`` variables and ``.env``.

Outside ``FINRPA_ENV=development`` the signing, encryption and audit keys must be set to strong values;
Settings refuses to load otherwise and names the variable. In development, missing keys are generated once
per data folder (``var/keys/``, mode 0600) so a laptop works without set-up and no key is ever shared.
"""

from __future__ import annotations

import base64
import os
import secrets
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from finrpa.exceptions import ConfigurationError

Environment = Literal["development", "test", "staging", "production"]

# Values that look like somebody forgot to set the secret.
_WEAK_SECRETS = frozenset(
    {"", "changeme", "change-me", "change_me", "secret", "dev", "development", "test", "password", "finrpa"}
)
_MIN_SECRET_CHARS = 32

# (setting name, environment variable, purpose) of every key that must be strong outside development.
SECRET_SETTINGS: tuple[tuple[str, str, str], ...] = (
    ("secret_key", "FINRPA_SECRET_KEY", "signs access tokens and expiring links"),
    ("master_key", "FINRPA_MASTER_KEY", "wraps the per-organisation vault data keys"),
    ("audit_key", "FINRPA_AUDIT_KEY", "derives the per-organisation audit HMAC keys"),
)


class Settings(BaseSettings):
    """All of FinRPA's configuration. Every field maps to ``FINRPA_<FIELD>``."""

    model_config = SettingsConfigDict(env_prefix="FINRPA_", env_file=".env", extra="ignore")

    env: Environment = "development"
    data_dir: Path = Path("./var")
    database_url: str | None = Field(
        default=None, description="SQLAlchemy URL; default is a SQLite file in data_dir."
    )
    log_level: str = "INFO"
    log_json: bool = True

    # Keys. Outside development they must be set explicitly.
    secret_key: SecretStr | None = None
    master_key: SecretStr | None = None
    audit_key: SecretStr | None = None

    # Services (all optional: embedded adapters are used when unset).
    redis_url: str | None = None
    s3_endpoint_url: str | None = None
    s3_access_key_id: str | None = None
    s3_secret_access_key: SecretStr | None = None
    s3_region: str = "us-east-1"
    s3_bucket_mode: Literal["monthly", "object_lock"] = "monthly"
    s3_bucket_prefix: str = "finrpa-audit"

    # Browser.
    chromium_path: str | None = None
    headless: bool = True
    browser_slots: int = 2

    # API server.
    host: str = "127.0.0.1"
    port: int = 8000

    # Sandbox portals.
    sandbox_host: str = "127.0.0.1"
    sandbox_port: int = 8600

    # LLM (none configured → deterministic mode).
    llm_provider: Literal["none", "openai", "anthropic"] = "none"
    llm_base_url: str | None = None
    llm_api_key: SecretStr | None = None
    llm_model_light: str | None = None
    llm_model_standard: str | None = None
    llm_model_heavy: str | None = None
    llm_timeout_s: float = 60.0

    @model_validator(mode="after")
    def _require_strong_secrets(self) -> Settings:
        if self.env == "development":
            return self
        for field, variable, purpose in SECRET_SETTINGS:
            value = getattr(self, field)
            raw = value.get_secret_value() if value is not None else ""
            if raw.strip().lower() in _WEAK_SECRETS or len(raw) < _MIN_SECRET_CHARS:
                raise ValueError(
                    f"{variable} is empty or a default value (it {purpose}). With FINRPA_ENV={self.env} set "
                    f"it to a random value of at least {_MIN_SECRET_CHARS} characters, for example "
                    "the output of: python -c 'import secrets; print(secrets.token_urlsafe(48))'"
                )
        return self

    @property
    def resolved_database_url(self) -> str:
        """The SQLAlchemy async URL in use (SQLite file in the data folder by default)."""
        if self.database_url:
            return normalize_database_url(self.database_url)
        return f"sqlite+aiosqlite:///{(self.data_dir / 'finrpa.db').resolve()}"

    @property
    def is_sqlite(self) -> bool:
        return self.resolved_database_url.startswith("sqlite")

    def key(self, field: Literal["secret_key", "master_key", "audit_key"]) -> bytes:
        """The raw bytes of a key; in development a missing key is generated once in ``data_dir/keys``."""
        value: SecretStr | None = getattr(self, field)
        if value is not None and value.get_secret_value():
            return value.get_secret_value().encode()
        if self.env != "development":  # pragma: no cover - the validator already refused
            raise ConfigurationError(f"FINRPA_{field.upper()} is not set.")
        return _development_key(self.data_dir, field)


def normalize_database_url(url: str) -> str:
    """Accept the usual spellings and return the async driver URL."""
    for prefix in ("postgres://", "postgresql://", "postgresql+psycopg2://", "postgresql+psycopg://"):
        if url.startswith(prefix):
            return "postgresql+asyncpg://" + url[len(prefix) :]
    if url.startswith("sqlite:///"):
        return "sqlite+aiosqlite:///" + url[len("sqlite:///") :]
    return url


def _development_key(data_dir: Path, name: str) -> bytes:
    folder = data_dir / "keys"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(base64.urlsafe_b64encode(secrets.token_bytes(32)).decode())
    return path.read_text().strip().encode()


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings; raises ConfigurationError with the validator's sentence."""
    try:
        return Settings()
    except ValueError as exc:
        raise ConfigurationError(_first_error_sentence(exc)) from exc


def _first_error_sentence(exc: ValueError) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        for error in errors():
            message = str(error.get("msg", ""))
            return message.removeprefix("Value error, ")
    return str(exc)
