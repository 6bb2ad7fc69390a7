"""Fixtures for the LLM layer's integration tests: the scripted LLM server and key-value stores."""

from tests.fixtures.llm_server import llm_server, llm_server_process
from tests.integration.cache.conftest import key_value_store

__all__ = ["key_value_store", "llm_server", "llm_server_process"]
