"""RFC 9457 problem documents: the one error shape of the API (``application/problem+json``).

Every error response carries ``type`` (a ``urn:finrpa:problem:<code>`` URI), ``title`` (the HTTP reason),
``status``, ``detail`` (a sentence that says what to do), ``code`` (stable, machine-readable), ``retryable``
and the ``request_id`` to quote when asking for help. Validation errors add ``errors``, one per field.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

PROBLEM_MEDIA_TYPE = "application/problem+json"


class FieldProblem(BaseModel):
    """One invalid input: where it is (e.g. ``body.parameters.start_date``) and what is wrong."""

    location: str
    message: str


class Problem(BaseModel):
    """An error, as RFC 9457 describes it, with FinRPA's ``code``, ``retryable`` and ``request_id``."""

    type: str = Field(description="URI naming the kind of problem: urn:finrpa:problem:<code>.")
    title: str = Field(description="The HTTP status phrase.")
    status: int
    detail: str = Field(description="What went wrong and what to do, as a sentence.")
    code: str = Field(description="Stable machine-readable code, e.g. not_found or validation_failed.")
    retryable: bool = Field(description="Whether sending the same request again later may succeed.")
    request_id: str | None = Field(None, description="Quote it when reporting the problem.")
    errors: list[FieldProblem] | None = Field(None, description="Invalid inputs, for validation problems.")


def make_problem(
    status: int,
    detail: str,
    code: str,
    *,
    retryable: bool = False,
    request_id: str | None = None,
    errors: list[FieldProblem] | None = None,
) -> Problem:
    return Problem(
        type=f"urn:finrpa:problem:{code}",
        title=_phrase(status),
        status=status,
        detail=detail,
        code=code,
        retryable=retryable,
        request_id=request_id,
        errors=errors,
    )


def problem_response(problem: Problem, headers: dict[str, str] | None = None) -> JSONResponse:
    """The JSON response of a problem (``None`` fields left out)."""
    body = problem.model_dump(mode="json", exclude_none=True)
    return JSONResponse(body, status_code=problem.status, media_type=PROBLEM_MEDIA_TYPE, headers=headers)


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def _problem_content(description: str) -> dict[str, Any]:
    schema = {"$ref": "#/components/schemas/Problem"}
    return {"description": description, "content": {PROBLEM_MEDIA_TYPE: {"schema": schema}}}


# Declared on every authenticated route so clients know the error shape (and generate types for it).
PROBLEM_RESPONSES: dict[int | str, dict[str, Any]] = {
    401: _problem_content("Not signed in, or the token or API key is not valid."),
    403: _problem_content("Signed in, but not allowed to do this."),
    404: _problem_content("No such object in your organisation."),
    409: _problem_content("The object's state, or an earlier request with the same Idempotency-Key, conflicts."),
    422: _problem_content("The request is not valid; `errors` lists each invalid input."),
    429: _problem_content("Too many requests; try again later."),
    500: _problem_content("An unexpected error; quote the request_id."),
}
