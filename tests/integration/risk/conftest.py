"""Fixtures for risk detection's integration tests: the scripted LLM server."""

from tests.fixtures.llm_server import llm_server, llm_server_process

__all__ = ["llm_server", "llm_server_process"]
