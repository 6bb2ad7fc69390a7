"""Two renders of the same page hash alike; a different page hashes differently."""

from __future__ import annotations

from finrpa.browser.dom_clean import clean_dom, dom_hash

RENDER_A = """<!DOCTYPE html><html><head><script nonce="a1b2">window.t = 1700000000123;</script>
<style>.x{color:red}</style></head><body>
<!-- rendered 2024-03-01 09:00:01 -->
<div id="ember1234" class="btn x-9f8e7d" style="color:red" data-reactid=".0.1" data-testid="pay">
  付款   金额   更新于 2024-03-01 12:00:01</div>
<form><input type="hidden" name="csrf_token" value="q1w2e3r4t5">
<input type="hidden" name="authenticity_token" value="zz">
<label for="f-8d7a6c12">金额</label><input id="f-8d7a6c12" name="amount" value="100.00"></form>
<span data-v-4f3a2b1c>提交</span></body></html>"""

RENDER_B = (
    RENDER_A.replace("ember1234", "ember5678").replace("x-9f8e7d", "x-111aaa").replace("8d7a6c12", "77e1f0aa")
    .replace("100.00", "250.00").replace("q1w2e3r4t5", "p0o9i8u7").replace("12:00:01", "12:07:45")
    .replace("1700000000123", "1700000099999").replace("data-v-4f3a2b1c", "data-v-0a0b0c0d")
    .replace("a1b2", "c3d4")
)


def test_volatile_attributes_tokens_values_and_timestamps_do_not_change_the_hash() -> None:
    assert clean_dom(RENDER_A) == clean_dom(RENDER_B)
    assert dom_hash(RENDER_A) == dom_hash(RENDER_B)


def test_a_change_of_wording_or_structure_changes_the_hash() -> None:
    assert dom_hash(RENDER_A) != dom_hash(RENDER_A.replace("金额", "付款金额"))
    assert dom_hash(RENDER_A) != dom_hash(RENDER_A.replace("<span", "<button").replace("</span>", "</button>"))


def test_cleaned_text_keeps_structure_and_names_but_drops_noise() -> None:
    cleaned = clean_dom(RENDER_A)
    assert "csrf" not in cleaned and "authenticity" not in cleaned and "q1w2e3r4t5" not in cleaned
    assert "100.00" not in cleaned and "style=" not in cleaned and "class=" not in cleaned
    assert "<!--" not in cleaned and "window.t" not in cleaned and "data-testid" not in cleaned
    assert '<input id="f-#" name="amount">' in cleaned
    assert "付款 金额 更新于" in cleaned


def test_hash_is_sha256_hex() -> None:
    digest = dom_hash("<p>x</p>")
    assert len(digest) == 64 and int(digest, 16) >= 0
