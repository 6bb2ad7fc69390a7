"""`finrpa sandbox`: serve the three sandbox portals in the foreground until Ctrl-C."""

from __future__ import annotations

import typer

from finrpa.exceptions import ConfigurationError


def sandbox(
    host: str = typer.Option("127.0.0.1", help="Address to listen on."),
    port: int = typer.Option(8600, help="Port to listen on (0 picks a free one)."),
    layout: str = typer.Option(
        "v1", help="Portal layout: v1, or v2 (the redesign: new labels, order, iframes)."
    ),
    captcha: bool = typer.Option(False, "--captcha", help="Image captcha (验证码) on the login forms."),
    totp: bool = typer.Option(
        False, "--totp", help="TOTP (动态口令) second login step; seeds on the landing page."
    ),
    latency_ms: int = typer.Option(0, "--latency-ms", help="Delay added to every page and form request."),
    error_rate: float = typer.Option(
        0.0, "--error-rate", help="Share of requests answered with 500 or 系统繁忙."
    ),
    session_timeout: float = typer.Option(
        0.0, "--session-timeout", help="Idle logout after S seconds (0: never)."
    ),
    dynamic_ids: bool = typer.Option(
        False, "--dynamic-ids", help="New ids and hashed class names per render."
    ),
    expose_state: bool = typer.Option(
        False, "--expose-state", help="Serve /__sandbox__/state, /reset, /config."
    ),
    seed: int = typer.Option(42, help="Seeds the generated transactions and the error injection."),
) -> None:
    """Serve the sandbox bank, insurance and securities portals (Chinese by default, ?lang=en for English)."""
    import uvicorn
    from pydantic import ValidationError

    from finrpa.sandbox.app import create_app
    from finrpa.sandbox.config import SandboxConfig

    try:
        config = SandboxConfig(
            host=host,
            port=port,
            layout=layout,
            captcha=captcha,
            totp=totp,
            latency_ms=latency_ms,
            error_rate=error_rate,
            session_timeout_s=session_timeout,
            dynamic_ids=dynamic_ids,
            expose_state=expose_state,
            seed=seed,
        )
    except ValidationError as exc:
        problems = "; ".join(f"--{'-'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise ConfigurationError(
            f"Sandbox options rejected ({problems}); see `finrpa sandbox --help`."
        ) from exc
    typer.echo(
        f"Sandbox portals on http://{host}:{port}/ (bank, insurance, securities); demo password demo123."
    )
    uvicorn.run(create_app(config), host=host, port=port, log_level="warning")
