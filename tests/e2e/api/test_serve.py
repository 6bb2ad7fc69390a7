"""`finrpa serve` starts the API (migrating a fresh embedded database), answers /healthz and /readyz, serves the
dashboard or says how to build it, and stops cleanly on SIGTERM."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_for(url: str, process: subprocess.Popen[bytes], seconds: float = 90.0) -> httpx.Response:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"finrpa serve exited with {process.returncode}")
        try:
            return httpx.get(url, timeout=2)
        except httpx.TransportError:
            time.sleep(0.3)
    raise AssertionError(f"{url} did not answer within {seconds} s")


def test_finrpa_serve_answers_health_and_stops_on_sigterm(tmp_path: Path) -> None:
    port = _free_port()
    env = {**os.environ, "FINRPA_ENV": "development", "FINRPA_DATA_DIR": str(tmp_path / "var")}
    command = [sys.executable, "-m", "finrpa.cli", "serve", "--port", str(port), "--no-worker"]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        health = _wait_for(f"http://127.0.0.1:{port}/healthz", process)
        assert health.status_code == 200 and health.json()["status"] == "ok"
        ready = httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=10)
        assert ready.status_code == 200 and ready.json()["ready"] is True
        home = httpx.get(f"http://127.0.0.1:{port}/", timeout=10)
        assert home.status_code == 200 and "text/html" in home.headers["content-type"]
        credentials = {"org": "x", "username": "y", "password": "z"}
        login = httpx.post(f"http://127.0.0.1:{port}/api/v1/auth/login", json=credentials)
        assert login.status_code == 401 and login.headers["content-type"] == "application/problem+json"
    finally:
        process.send_signal(signal.SIGTERM)
        output = process.communicate(timeout=30)[0].decode(errors="replace")
    # uvicorn re-raises the signal it caught once shutdown is complete, so the exit status is SIGTERM's
    assert process.returncode in (0, -signal.SIGTERM), output
    assert "Application shutdown complete" in output
    assert (tmp_path / "var" / "finrpa.db").exists(), "development mode migrated the embedded database"
