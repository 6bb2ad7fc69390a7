"""Image captcha (验证码): four characters drawn with noise into a PNG, compared case-insensitively."""

from __future__ import annotations

import io
import random
import secrets

from PIL import Image, ImageDraw, ImageFont

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: real portals avoid them too
WIDTH, HEIGHT = 120, 40


def new_captcha_text(length: int = 4) -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(length))


def captcha_matches(expected: str | None, typed: str) -> bool:
    return expected is not None and secrets.compare_digest(expected.upper(), typed.strip().upper())


def _draw_noise(draw: ImageDraw.ImageDraw, rng: random.Random) -> None:
    for _ in range(5):
        points = [(rng.randint(0, WIDTH), rng.randint(0, HEIGHT)) for _ in range(2)]
        draw.line(points, fill=(rng.randint(90, 200), rng.randint(90, 200), rng.randint(90, 200)), width=1)
    for _ in range(120):
        draw.point((rng.randint(0, WIDTH - 1), rng.randint(0, HEIGHT - 1)), fill=(rng.randint(0, 255),) * 3)


def render_captcha_png(text: str) -> bytes:
    """A PNG of `text`, each character slightly rotated and coloured, over noise lines and dots."""
    rng = random.Random(secrets.randbits(32))
    image = Image.new("RGB", (WIDTH, HEIGHT), (238, 242, 247))
    font = ImageFont.load_default(size=26)
    for index, char in enumerate(text):
        glyph = Image.new("RGBA", (30, 36), (0, 0, 0, 0))
        colour = (rng.randint(10, 120), rng.randint(10, 120), rng.randint(60, 160), 255)
        ImageDraw.Draw(glyph).text((5, 2), char, font=font, fill=colour)
        glyph = glyph.rotate(rng.uniform(-25, 25), resample=Image.Resampling.BICUBIC)
        image.paste(glyph, (8 + index * 27, 2), glyph)
    _draw_noise(ImageDraw.Draw(image), rng)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()
