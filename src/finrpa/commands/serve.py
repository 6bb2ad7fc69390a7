"""`finrpa serve`: the API, the embedded run worker, the notification dispatcher and the built dashboard in
one process (the embedded deployment of SPEC §1)."""

from __future__ import annotations

from pathlib import Path

import typer

from finrpa.config import get_settings


def serve(
    host: str | None = typer.Option(None, "--host", help="Interface to listen on (default FINRPA_HOST, 127.0.0.1)."),
    port: int | None = typer.Option(None, "--port", min=1, max=65535, help="Port (default FINRPA_PORT, 8000)."),
    worker: bool = typer.Option(
        True,
        "--worker/--no-worker",
        help="Execute runs in this process (--no-worker: queue them for `finrpa worker` processes).",
    ),
    web_dist: Path | None = typer.Option(
        None, "--web-dist", help="The built dashboard folder (default: web/dist when it has been built)."
    ),
) -> None:
    """Serve the HTTP API under /api/v1 and the dashboard at /, and execute runs started through it."""
    import uvicorn

    from finrpa.api import ApiOptions, create_app

    settings = get_settings()
    settings = settings.model_copy(update={"host": host or settings.host, "port": port or settings.port})
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    app = create_app(settings, ApiOptions(worker=worker, queue=not worker, web_dist=web_dist))
    typer.echo(f"FinRPA on http://{settings.host}:{settings.port} (API docs: /api/v1/docs)")
    uvicorn.run(app, host=settings.host, port=settings.port, log_level=settings.log_level.lower(), access_log=False)
