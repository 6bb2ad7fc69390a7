"""Run the sandbox in-process: uvicorn on a background thread, for the demo, tests and benchmarks.

with SandboxServer(SandboxConfig(port=0, expose_state=True)) as server:
    page.goto(server.base_url + "/bank/login")
"""

from __future__ import annotations

import threading
import time
from types import TracebackType

import uvicorn

from finrpa.exceptions import ConfigurationError
from finrpa.sandbox.app import create_app
from finrpa.sandbox.config import SandboxConfig
from finrpa.sandbox.runtime import SandboxRuntime
from finrpa.sandbox.state import StateSnapshot


class SandboxStartError(ConfigurationError):
    """The sandbox server did not come up."""


class SandboxServer:
    """The sandbox portals on a loopback port (port 0 picks a free one) in a daemon thread."""

    def __init__(self, config: SandboxConfig | None = None, startup_timeout_s: float = 15.0) -> None:
        self._app = create_app(config or SandboxConfig(port=0))
        self._runtime: SandboxRuntime = self._app.state.runtime
        self._startup_timeout_s = startup_timeout_s
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.base_url = ""

    @property
    def config(self) -> SandboxConfig:
        return self._runtime.config

    def start(self) -> str:
        """Start serving and return the base URL once the server answers."""
        if self._server is not None:
            return self.base_url
        config = self._runtime.config
        uv_config = uvicorn.Config(
            self._app, host=config.host, port=config.port, log_level="warning", access_log=False
        )
        self._server = uvicorn.Server(uv_config)
        self._thread = threading.Thread(
            target=self._serve, args=(self._server,), name="finrpa-sandbox", daemon=True
        )
        self._thread.start()
        self.base_url = self._wait_until_started(self._server)
        return self.base_url

    @staticmethod
    def _serve(server: uvicorn.Server) -> None:
        try:
            server.run()
        except SystemExit:  # uvicorn exits when it cannot bind; _wait_until_started reports it
            return

    def _wait_until_started(self, server: uvicorn.Server) -> str:
        deadline = time.monotonic() + self._startup_timeout_s
        while not server.started:
            if self._thread is None or not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise SandboxStartError(
                    f"The sandbox did not start on {self._runtime.config.host}:{self._runtime.config.port}; "
                    "pick another port (or 0 for any free port)."
                )
            time.sleep(0.02)
        host, port = server.servers[0].sockets[0].getsockname()[:2]
        return f"http://{host}:{port}"

    def stop(self) -> None:
        """Stop serving and wait for the thread to end."""
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._server = self._thread = None

    def set_config(self, **changes: object) -> SandboxConfig:
        """Change switches on the running server, e.g. `set_config(layout="v2")`."""
        return self._runtime.set_config(changes)

    def reset(self) -> None:
        """Forget submissions, login failures, lockouts and sessions."""
        self._runtime.reset()

    def state(self) -> StateSnapshot:
        """What has been submitted so far (the same data GET /__sandbox__/state serves)."""
        return self._runtime.state.snapshot()

    def __enter__(self) -> SandboxServer:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
