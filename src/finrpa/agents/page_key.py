"""The page half of an action-cache key: ``dom_hash`` of the page's cleaned DOM *without its data*.

Two visits to the same page of a portal should share a key even when the data on it differs — page 3 of a
statement is the same page as page 2 — while a redesign (renamed labels, moved fields) changes the key. So
before hashing, the page is reduced to its skeleton: table bodies and data rows are dropped, digits are
folded, text made only of numbers and punctuation (page numbers, amounts, "…") is dropped, inline tags
(``a``/``span``…) are unwrapped to their text, and only attributes that describe a control's kind
(role, type, title, placeholder, aria-label) are kept. Open shadow roots and same-origin frames are
included. The skeleton then goes through :func:`finrpa.browser.dom_hash` like any cleaned DOM.

A skeleton key is deliberately coarse: what keeps a cached decision safe is that every cached action is
re-resolved by its fingerprint on the live page before it acts (a disabled "next page" on the last page
shares the key of the middle pages, and its cached click is refused there).
"""

from __future__ import annotations

import asyncio

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from finrpa.browser import dom_hash

SKELETON_TIMEOUT_S = 5.0

_SKELETON_SCRIPT = r"""() => {
  const INLINE = new Set(["A", "SPAN", "B", "I", "EM", "STRONG", "SMALL", "FONT", "ABBR", "CODE", "SUP", "SUB",
    "U", "MARK", "TIME", "BDI", "BDO", "CITE", "Q", "S", "DFN", "KBD", "SAMP", "VAR", "WBR", "BR"]);
  const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "SVG", "CANVAS", "FINRPA-MASK", "TBODY"]);
  const KEEP = ["role", "type", "title", "placeholder", "aria-label", "aria-haspopup", "multiple"];
  const fold = (text) => text.replace(/\s+/g, " ").trim().replace(/[0-9\uff10-\uff19]+/g, "#");
  const DATA_ONLY = /^[#\s\p{P}\p{S}\u2026]*$/u;
  const out = [];
  const isDataRow = (el) => el.getAttribute("role") === "row" && !el.querySelector("[role=columnheader]");
  const open = (el, tag) => {
    const attrs = KEEP.filter((name) => el.hasAttribute(name))
      .map((name) => ` ${name}="${fold(el.getAttribute(name) || "").replace(/"/g, "'")}"`).join("");
    out.push(`<${tag}${attrs}>`);
  };
  const visit = (root) => {
    for (const child of root.childNodes) {
      if (child.nodeType === 3) {
        const text = fold(child.nodeValue || "");
        if (text && !DATA_ONLY.test(text)) out.push(text);
        continue;
      }
      if (child.nodeType !== 1) continue;
      const tag = child.tagName.toUpperCase();
      if (SKIP.has(tag) || isDataRow(child)) continue;
      const inline = INLINE.has(tag) && !child.hasAttribute("role");
      if (!inline) open(child, tag.toLowerCase());
      if (child.shadowRoot) visit(child.shadowRoot);
      if (tag === "IFRAME" || tag === "FRAME") {
        try { if (child.contentDocument) visit(child.contentDocument); } catch (e) { /* cross-origin */ }
      }
      visit(child);
      if (!inline) out.push(`</${tag.toLowerCase()}>`);
    }
  };
  visit(document);
  return out.join("");
}"""


async def page_skeleton(page: Page) -> str | None:
    """The page's data-free skeleton (see the module docstring); None while it cannot be read (navigating,
    or a native dialog blocks the page's scripts)."""
    try:
        skeleton = await asyncio.wait_for(page.main_frame.evaluate(_SKELETON_SCRIPT), SKELETON_TIMEOUT_S)
    except (PlaywrightError, TimeoutError):
        return None
    return skeleton if isinstance(skeleton, str) and skeleton else None


async def page_cache_hash(page: Page) -> str | None:
    """``dom_hash`` of the page's skeleton: the page part of an action-cache key, or None (no caching)."""
    skeleton = await page_skeleton(page)
    return dom_hash(skeleton) if skeleton is not None else None
