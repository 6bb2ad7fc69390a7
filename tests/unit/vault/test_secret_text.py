"""SecretText never shows its value, however it is printed, logged or serialised."""

from __future__ import annotations

import copy
import json
import logging
import pickle

import pytest
import structlog
from pydantic import BaseModel

from finrpa.kit.secret_text import SecretText

VALUE = "pw-for-tests-only-7c1e"


class Login(BaseModel):
    username: str
    password: SecretText


def test_every_way_of_printing_is_masked() -> None:
    secret = SecretText(VALUE)
    shown = [str(secret), repr(secret), f"{secret}", f"{secret!r}", f"{secret:>30}", f"{secret}"]
    shown.append(str([secret, {"p": secret}]))
    assert all(VALUE not in text for text in shown)
    assert secret.reveal() == VALUE


def test_logging_and_structlog_json_are_masked(caplog: pytest.LogCaptureFixture) -> None:
    secret = SecretText(VALUE)
    with caplog.at_level(logging.INFO):
        logging.getLogger("finrpa.test").info("typing %s into the portal", secret)
    rendered = structlog.processors.JSONRenderer()(None, "info", {"event": "login", "password": secret})
    assert VALUE not in caplog.text and VALUE not in rendered


def test_pydantic_serialises_the_mask_and_json_dumps_refuses() -> None:
    login = Login(username="olga", password=SecretText(VALUE))
    assert VALUE not in login.model_dump_json() and VALUE not in str(login.model_dump())
    assert VALUE not in repr(login)
    with pytest.raises(TypeError):
        json.dumps({"password": SecretText(VALUE)})


def test_it_cannot_be_pickled_or_deep_copied_out() -> None:
    with pytest.raises(TypeError):
        pickle.dumps(SecretText(VALUE))
    with pytest.raises(TypeError):
        copy.deepcopy(SecretText(VALUE))


def test_equal_values_compare_equal() -> None:
    assert SecretText(VALUE) == SecretText(VALUE) and SecretText(VALUE) != SecretText("other")
