"""Captcha images and their comparison."""

from __future__ import annotations

import io

from PIL import Image

from finrpa.sandbox.captcha import ALPHABET, captcha_matches, new_captcha_text, render_captcha_png


def test_captcha_is_a_png_of_four_unambiguous_characters() -> None:
    text = new_captcha_text()
    assert len(text) == 4 and set(text) <= set(ALPHABET) and not set(text) & set("0O1IL")
    with Image.open(io.BytesIO(render_captcha_png(text))) as image:
        assert (image.format, image.size) == ("PNG", (120, 40))


def test_comparison_ignores_case_and_spaces_but_not_a_missing_captcha() -> None:
    assert captcha_matches("K7QX", " k7qx ")
    assert not captcha_matches("K7QX", "K7Q")
    assert not captcha_matches(None, "")
