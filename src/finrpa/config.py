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
    # PostgreSQL: no statement waits longer than this for another session's lock (0: no limit); a statement that
    # does is rolled back with a retryable error (finrpa.exceptions.LockTimeoutError).
    database_lock_timeout_s: float = Field(30.0, ge=0)
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

    # Notifications (finrpa.notify): WeCom/DingTalk robots, signed webhooks and SMTP, sent from an outbox.
    # Links in messages point at notify_dashboard_url (default http://<host>:<port>).
    notify_dashboard_url: str | None = None
    notify_timezone: str = "Asia/Shanghai"  # times in messages are shown in this zone
    notify_timeout_s: float = 10.0  # per HTTP request; per SMTP socket operation
    notify_max_attempts: int = 8  # then the delivery is marked dead
    notify_backoff_initial_s: float = 30.0
    notify_backoff_multiplier: float = 2.0
    notify_backoff_max_s: float = 3600.0
    notify_lease_s: float = 120.0  # a claimed delivery not marked by then is claimed again (crash recovery)
    notify_batch_size: int = 50
    notify_concurrency: int = 8
    notify_poll_interval_s: float = 2.0
    notify_allow_http: bool = False  # plain-http endpoints; always allowed with FINRPA_ENV=development

    # LLM (none configured → deterministic mode).
    llm_provider: str = "none"  # "none", "openai", "anthropic", or a finrpa.llm_providers plug-in name
    llm_base_url: str | None = None
    llm_api_key: SecretStr | None = None
    llm_model_light: str | None = None
    llm_model_standard: str | None = None
    llm_model_heavy: str | None = None
    llm_timeout_s: float = 60.0
    # LLM layer (finrpa.llm): structured output, retries, prices, router and action cache.
    # Provider JSON mode: "json_schema" (OpenAI strict-ish schema mode; Anthropic output_config.format),
    # "json_object" (most OpenAI-compatible servers: DeepSeek, Qwen, vLLM, Ollama), or "none" (prompt only).
    llm_json_mode: Literal["json_schema", "json_object", "none"] = "json_object"
    llm_max_output_tokens: int = 4096
    llm_temperature: float = 0.0
    llm_max_attempts: int = 3
    llm_backoff_initial_s: float = 1.0
    llm_backoff_multiplier: float = 2.0
    llm_backoff_max_s: float = 30.0
    llm_retry_after_max_s: float = 60.0  # a provider's Retry-After is honoured up to this many seconds
    # Prices in USD per 1M tokens, per tier (0 = unknown/free, e.g. a self-hosted vLLM).
    llm_price_light_input: float = 0.0
    llm_price_light_output: float = 0.0
    llm_price_standard_input: float = 0.0
    llm_price_standard_output: float = 0.0
    llm_price_heavy_input: float = 0.0
    llm_price_heavy_output: float = 0.0
    # Model router thresholds (SPEC C7) and promotion after repeated failures of a tier on one page.
    llm_router_element_count: int = 500  # more elements than this is a complexity signal
    llm_router_iframe_depth: int = 2  # frames nested at least this deep is a signal
    llm_router_form_fields: int = 20  # at least this many form fields is a signal
    llm_router_complex_signals: int = 2  # this many signals make a page COMPLEX (one makes it MODERATE)
    llm_router_promote_after_failures: int = 3
    llm_router_failure_memory_s: int = 7 * 24 * 3600
    # Action cache (verified LLM decisions per org, cleaned-DOM hash and goal).
    action_cache_ttl_s: int = 24 * 3600
    action_cache_alert_window: int = 20  # recent lookups compared with the baseline before them
    action_cache_alert_baseline: int = 100
    action_cache_alert_drop: float = 0.3  # alert when the hit rate falls by this much (absolute)
    action_cache_alert_cooldown_s: int = 3600

    # Identity (finrpa.identity): tokens, sessions, login throttling, passwords.
    access_token_ttl_s: int = 900  # access JWTs live 15 minutes
    refresh_token_ttl_s: int = 8 * 3600  # an unused refresh token expires after this long
    auth_session_max_s: int = 12 * 3600  # absolute limit of one login, refreshes included
    jwt_issuer: str = "finrpa"
    jwt_audience: str = "finrpa-api"
    login_max_failures: int = 5  # consecutive failed passwords that lock the account
    login_lockout_s: int = 900
    login_rate_limit_attempts: int = 10  # failed attempts per (organisation, username) within the window
    login_rate_limit_window_s: int = 300
    password_min_length: int = 12

    # Audit and evidence (finrpa.audit, finrpa.objectstore): object store, signed checkpoints, masking.
    object_store: Literal["auto", "local", "s3"] = "auto"  # auto: S3 when s3_endpoint_url is set
    object_store_dir: Path | None = None  # local adapter root; default data_dir/objects
    object_link_base_url: str | None = None  # local download links point here; default http://<host>:<port>
    s3_object_lock_days: int = 1825  # default COMPLIANCE retention of the object_lock bucket (5 years)
    audit_checkpoint_dir: Path | None = None  # signed checkpoints; default data_dir/audit-checkpoints
    audit_checkpoint_bucket: str | None = None  # write checkpoints to this object-store bucket instead
    audit_link_ttl_s: int = 3600  # screenshot links expire after this many seconds
    audit_masking_profile: Literal["strict", "auditor"] = "strict"  # how much stored rows keep visible
    audit_export_max_rows: int = 100_000
    audit_checkpoint_interval_s: float = 600  # workers sign checkpoints of grown chains this often; 0: off

    # Policy and capability tokens (finrpa.policy). Tokens are signed with an Ed25519 key derived from
    # FINRPA_SECRET_KEY (HKDF) unless a PEM private key file is configured.
    policy_timezone: str = "Asia/Shanghai"  # local time for the policy context's hour and weekday
    capability_key_file: Path | None = None
    capability_token_ttl_s: int = 300
    capability_token_max_ttl_s: int = 3600

    # Approvals (finrpa.approvals, SPEC §C11): maker-checker and dual control, timeouts, and the wait.
    approval_timeout_high_s: int = 30 * 60  # low/medium/high risk: decide within 30 minutes or it times out
    approval_timeout_critical_s: int = 60 * 60
    approval_required_high: int = 1  # distinct approvers needed below critical
    approval_required_critical: int = 2  # dual control
    approval_poll_initial_s: float = 0.05  # without a working bus the waiter polls the database, backing off
    approval_poll_max_s: float = 1.0
    approval_recheck_s: float = 5.0  # with a working bus the waiter still reads the database this often
    approval_sweep_s: float = 10.0  # every worker times out overdue requests (of any organisation) this often
    # While a run waits for approval, its portal session is kept alive this often (portals log idle users out).
    approval_keepalive_s: float = Field(120.0, gt=0)

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
