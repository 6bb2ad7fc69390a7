"""The scripted LLM server fixtures for the LLM layer's integration tests."""

from tests.fixtures.llm_server import llm_server, llm_server_process

__all__ = ["llm_server", "llm_server_process"]
