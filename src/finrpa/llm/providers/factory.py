"""Choose the provider adapter from settings; third-party providers register in the
``finrpa.llm_providers`` entry-point group as a callable ``(settings) -> LLMProvider``."""

from __future__ import annotations

from importlib.metadata import entry_points

from finrpa.config import Settings
from finrpa.exceptions import ConfigurationError
from finrpa.llm.providers.base import LLMProvider
from finrpa.llm.providers.no_llm import NoLLMProvider

ENTRY_POINT_GROUP = "finrpa.llm_providers"


def build_provider(settings: Settings) -> LLMProvider:
    """The adapter named by ``FINRPA_LLM_PROVIDER`` (``none`` gives the no-LLM adapter)."""
    name = settings.llm_provider
    if name == "none":
        return NoLLMProvider()
    if not settings.llm_model_standard and not (settings.llm_model_light or settings.llm_model_heavy):
        raise ConfigurationError(
            f"FINRPA_LLM_PROVIDER={name} is set but no model is: set FINRPA_LLM_MODEL_STANDARD "
            "(and optionally FINRPA_LLM_MODEL_LIGHT and FINRPA_LLM_MODEL_HEAVY)."
        )
    api_key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else ""
    base_url = settings.llm_base_url
    key = api_key or "not-needed"  # local servers (vLLM, Ollama) accept any key
    timeout_s, json_mode = settings.llm_timeout_s, settings.llm_json_mode
    # The SDKs are imported only when used: importing them costs seconds that deterministic mode never needs.
    if name == "openai":
        from finrpa.llm.providers.openai_compatible import OpenAICompatibleProvider

        return OpenAICompatibleProvider(base_url=base_url, api_key=key, timeout_s=timeout_s, json_mode=json_mode)
    if name == "anthropic":
        from finrpa.llm.providers.anthropic_messages import AnthropicProvider

        return AnthropicProvider(base_url=base_url, api_key=key, timeout_s=timeout_s, json_mode=json_mode)
    return _plugin_provider(name, settings)


def _plugin_provider(name: str, settings: Settings) -> LLMProvider:
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        if entry.name == name:
            factory = entry.load()
            provider: LLMProvider = factory(settings)
            return provider
    raise ConfigurationError(
        f"No LLM provider named {name!r}; use openai, anthropic or none, or install the plug-in that "
        f"registers it in the {ENTRY_POINT_GROUP} entry-point group."
    )
