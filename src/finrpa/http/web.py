"""Serve the built dashboard (``web/dist``) at ``/``, with the single-page-app fallback.

Files that exist are served as they are (hashed assets cached for a year); any other path outside
``/api/`` gets ``index.html`` so the dashboard's own router can handle it. Without a build, ``/`` says how to
make one.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse, HTMLResponse, Response
from starlette.exceptions import HTTPException

import finrpa

_NO_BUILD = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>FinRPA</title></head>
<body><h1>FinRPA</h1><p>The API is running (<a href="/api/v1/docs">API documentation</a>,
<a href="/healthz">health</a>). The dashboard has not been built: run <code>npm ci &amp;&amp; npm run build</code>
in <code>web/</code>, then restart <code>finrpa serve</code>.</p></body></html>"""


def default_web_dist() -> Path | None:
    """``web/dist`` of the source checkout (src layout) or of the current directory, when built."""
    for root in (Path(finrpa.__file__).resolve().parents[2], Path.cwd()):
        candidate = root / "web" / "dist"
        if (candidate / "index.html").is_file():
            return candidate
    return None


def mount_web(app: FastAPI, dist: Path | None, *, api_prefix: str) -> None:
    folder = (dist or default_web_dist() or Path("/nonexistent")).resolve()
    index = folder / "index.html"

    @app.get("/{path:path}", include_in_schema=False)
    async def dashboard(path: str) -> Response:
        if path.startswith(api_prefix.strip("/") + "/") or path == api_prefix.strip("/"):
            return _api_not_found(path)
        if not index.is_file():
            return HTMLResponse(_NO_BUILD)
        target = (folder / path).resolve()
        if path and target.is_relative_to(folder) and target.is_file():
            return FileResponse(target, headers=_cache_headers(path))
        return FileResponse(index, headers={"Cache-Control": "no-cache"})


def _cache_headers(path: str) -> dict[str, str]:
    if path.startswith("assets/"):
        return {"Cache-Control": "public, max-age=31536000, immutable"}
    return {"Cache-Control": "no-cache"}


def _api_not_found(path: str) -> Response:
    raise HTTPException(status_code=404, detail=f"/{path}")
