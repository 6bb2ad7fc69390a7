// FinRPA page model: injected into every frame (init script). Counts significant DOM mutations (epoch),
// builds the per-frame part of a PageSnapshot, re-resolves one element by fingerprint, marks sensitive
// inputs for masked screenshots. Everything here is read-only towards the page except data-finrpa-* marks.
(() => {
  if (window.__finrpa_pm) return;
  const stringify = JSON.stringify;  // captured before page scripts run
  const MAX_NAME = 80;
  const SIG_ATTRS = ["disabled", "hidden", "aria-hidden", "aria-disabled", "open", "inert", "type"];
  const INTERACTIVE_ROLES = new Set([
    "button", "link", "checkbox", "radio", "textbox", "searchbox", "combobox", "listbox", "option",
    "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "switch", "slider", "spinbutton", "treeitem",
    "gridcell",
  ]);
  const TEXT_TYPES = new Set(["", "text", "email", "tel", "url", "search", "password", "number", "date",
    "datetime-local", "month", "week", "time"]);
  const NAME_FROM_CONTENT = new Set(["button", "link", "option", "menuitem", "menuitemcheckbox",
    "menuitemradio", "tab", "treeitem", "gridcell", "clickable", "checkbox", "radio", "switch"]);
  const CLICK_EVENTS = new Set(["click", "mousedown", "mouseup", "pointerdown", "pointerup"]);
  const SENSITIVE_AUTOCOMPLETE = /cc-number|cc-csc|cc-exp|one-time-code|current-password|new-password/i;
  // Card numbers (13-19 digits, optionally in groups of four) and PRC ID numbers (15 or 18 characters).
  const TYPE_INTO = new Set(["", "text", "password", "search", "tel", "url", "email"]);  // typed, not set
  const CARD_OR_ID = /^(?:\d{13,19}|\d{4}(?:[ -]\d{4}){2,3}(?:[ -]?\d{1,3})?|\d{17}[\dXx])$/;
  const NUMBER_IN_TEXT = /(?<![\d.,])(?:\d{13,19}|\d{4}(?:[ -]\d{4}){2,3}(?:[ -]?\d{1,3})?|\d{17}[\dXx])(?![\d.,])/g;

  const state = {
    doc: Math.random().toString(36).slice(2, 10) + Date.now().toString(36),
    nav: 0, epoch: 0, changes: 0, waiters: [], listeners: new WeakSet(), observed: new WeakSet(),
    taken: new Map(), seq: 0, scrolls: 0,
  };

  // --- change tracking -----------------------------------------------------------------------------
  const ours = (node) => node && node.nodeType === 1 && /^(X-PW-|FINRPA-)/.test(node.tagName);
  // 0: every node of the list is FinRPA's own (or none), 1: a page text node, 2: a page element.
  const foreignIn = (list) => {
    let found = 0;
    for (const n of list) {
      if (ours(n)) continue;
      if (n.nodeType === 1) return 2;
      found = 1;
    }
    return found;
  };
  // One pass without allocating (a page being parsed delivers a record for every node the parser inserts):
  // a change is any record of the page's own nodes; it is significant when it adds or removes a page element or
  // changes one of SIG_ATTRS (the only attributes this observer watches).
  const onMutations = (records) => {
    let mine = false;
    let significant = false;
    for (const r of records) {
      if (ours(r.target)) continue;
      if (r.type === "attributes") {
        mine = significant = true;
        break;
      }
      if (r.type !== "childList") continue;
      const found = Math.max(foreignIn(r.addedNodes), foreignIn(r.removedNodes));
      if (found === 0) continue;
      mine = true;
      if (found === 2) {
        significant = true;
        break;
      }
    }
    if (!mine) return;
    state.changes += 1;
    if (significant) state.epoch += 1;
    const waiters = state.waiters;
    state.waiters = [];
    for (const w of waiters) w();
  };
  const sigObserver = new MutationObserver(onMutations);
  const anyObserver = new MutationObserver((records) => {
    if (!records.some((r) => !ours(r.target))) return;
    state.changes += 1;
    const waiters = state.waiters;
    state.waiters = [];
    for (const w of waiters) w();
  });
  const observe = (root) => {
    if (state.observed.has(root)) return;
    state.observed.add(root);
    sigObserver.observe(root, { childList: true, subtree: true, attributes: true, attributeFilter: SIG_ATTRS });
    anyObserver.observe(root, { characterData: true, subtree: true, attributes: true,
      attributeFilter: ["class", "style", "value", "aria-expanded", "aria-selected", "aria-checked",
        "checked", "selected"] });
  };
  observe(document);
  const attachShadow = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (init) {
    const root = attachShadow.call(this, init);
    try { observe(root); } catch (e) { /* never break the page */ }
    return root;
  };
  const addListener = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, listener, options) {
    if (CLICK_EVENTS.has(type) && this instanceof Element) state.listeners.add(this);
    return addListener.call(this, type, listener, options);
  };
  const bumpNav = () => { state.nav += 1; };
  for (const name of ["pushState", "replaceState"]) {
    const original = history[name];
    history[name] = function (...args) {
      const out = original.apply(this, args);
      if (name === "pushState") bumpNav();
      return out;
    };
  }
  addListener.call(window, "popstate", bumpNav);
  addListener.call(window, "hashchange", bumpNav);
  addListener.call(document, "scroll", () => { state.scrolls += 1; }, { capture: true, passive: true });
  for (const ev of ["input", "change"]) {
    addListener.call(document, ev, () => { state.changes += 1; const w = state.waiters; state.waiters = [];
      for (const f of w) f(); }, true);
  }

  // --- text and geometry ---------------------------------------------------------------------------
  const squash = (s) => (s || "").replace(/\s+/g, " ").trim();
  const clip = (s, n = MAX_NAME) => { s = squash(s); return s.length > n ? s.slice(0, n - 1) + "…" : s; };
  const maskNumbers = (s) => s.replace(NUMBER_IN_TEXT, (m) => "****" + m.replace(/\D/g, "").slice(-4));
  const visible = (el) => {
    if (!el.isConnected) return false;
    if (el.checkVisibility && !el.checkVisibility({ checkVisibilityCSS: true })) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const rootOf = (el) => el.getRootNode();
  const byId = (el, id) => {
    const root = rootOf(el);
    return (root.getElementById ? root.getElementById(id) : null) || document.getElementById(id);
  };
  const textOf = (el) => {
    if (!el) return "";
    if (el.nodeType === 3) return el.nodeValue || "";
    if (el.tagName === "INPUT" && /^(button|submit|reset)$/i.test(el.type)) return el.value || "";
    if (el.tagName === "IMG") return el.getAttribute("alt") || "";
    if (el.tagName === "SELECT" || el.tagName === "SCRIPT" || el.tagName === "STYLE") return "";
    let out = "";
    for (const child of el.childNodes) {
      if (child.nodeType === 3) out += child.nodeValue;
      else if (child.nodeType === 1) {
        if (child.hidden || child.getAttribute("aria-hidden") === "true") continue;
        if (/^(INPUT|TEXTAREA|SELECT)$/.test(child.tagName)) continue;
        out += " " + (child.getAttribute("aria-label") || textOf(child)) + " ";
      }
    }
    if (!squash(out) && el.shadowRoot) out = textOf(el.shadowRoot);
    return out;
  };

  // --- roles and names -----------------------------------------------------------------------------
  const roleOf = (el) => {
    const explicit = (el.getAttribute("role") || "").trim().split(/\s+/)[0];
    if (explicit && explicit !== "presentation" && explicit !== "none") return explicit;
    const tag = el.tagName;
    if (tag === "A") return el.hasAttribute("href") ? "link" : "";
    if (tag === "BUTTON" || tag === "SUMMARY") return "button";
    if (tag === "SELECT") return el.multiple || el.size > 1 ? "listbox" : "combobox";
    if (tag === "TEXTAREA") return "textbox";
    if (tag === "INPUT") {
      const t = (el.getAttribute("type") || "").toLowerCase();
      if (t === "hidden") return "";
      if (/^(button|submit|reset|image)$/.test(t)) return "button";
      if (t === "checkbox" || t === "radio") return t;
      if (t === "range") return "slider";
      if (t === "file") return "file";
      if (TEXT_TYPES.has(t)) return "textbox";
      return "textbox";
    }
    if (el.isContentEditable && (!el.parentElement || !el.parentElement.isContentEditable)) return "textbox";
    return "";
  };
  // Lists, tables and forms with a click listener delegate to their items: the items are the targets.
  const CONTAINERS = /^(UL|OL|TABLE|TBODY|THEAD|TR|FORM|NAV|DL|SECTION|MAIN|HTML|BODY|FIELDSET)$/;
  const isClickableFallback = (el) => {
    if (CONTAINERS.test(el.tagName)) return false;
    if (el.hasAttribute("onclick") || state.listeners.has(el)) return true;
    const tabindex = el.getAttribute("tabindex");
    if (tabindex !== null && Number(tabindex) >= 0 && squash(textOf(el))) return true;
    if (/^(HTML|BODY)$/.test(el.tagName)) return false;
    const cs = getComputedStyle(el);
    if (cs.cursor !== "pointer") return false;
    const parent = el.parentElement || (rootOf(el).host || null);
    return !parent || getComputedStyle(parent).cursor !== "pointer";
  };
  const labelTextOf = (el) => {
    const parts = [];
    if (el.labels) for (const l of el.labels) parts.push(textOf(l));
    return clip(parts.join(" "));
  };
  // Text just before a field in its own row: a preceding cell, <dt>, span or div (never a heading).
  const CONTROLS = "input,select,textarea,button,[role=textbox],[role=combobox]";
  const nearbyLabel = (el) => {
    let node = el;
    for (let depth = 0; depth < 3 && node && node.parentElement; depth += 1) {
      let sib = node.previousElementSibling;
      for (let hops = 0; sib && hops < 2; hops += 1, sib = sib.previousElementSibling) {
        if (sib.matches(CONTROLS) || sib.querySelector(CONTROLS)) return "";
        if (/^(H[1-6]|LEGEND|CAPTION|SCRIPT|STYLE)$/.test(sib.tagName)) return "";
        const t = clip(textOf(sib), 40);
        if (t) return t.replace(/[:：*\s]+$/, "").replace(/^[*\s]+/, "");
      }
      node = node.parentElement;
      if (!node || /^(FORM|FIELDSET|TABLE|TBODY|BODY|UL|OL|SECTION|DIALOG)$/.test(node.tagName)) break;
    }
    return "";
  };
  const explicitLabel = (el) => {
    const ids = el.getAttribute("aria-labelledby");
    if (ids) {
      const t = ids.split(/\s+/).map((id) => textOf(byId(el, id))).join(" ");
      if (squash(t)) return clip(t);
    }
    const aria = el.getAttribute("aria-label");
    if (aria && squash(aria)) return clip(aria);
    return "";
  };
  const isField = (role) => /^(textbox|searchbox|combobox|listbox|spinbutton|slider|file|checkbox|radio|switch)$/.test(role);
  const describe = (el, role) => {
    const explicit = explicitLabel(el);
    const label = isField(role) ? (labelTextOf(el) || "") : "";
    let name = explicit || label;
    let nearby = "";
    if (!name && NAME_FROM_CONTENT.has(role)) name = clip(textOf(el));
    if (!name && isField(role)) { nearby = nearbyLabel(el); name = nearby; }
    if (!name) name = clip(el.getAttribute("title") || el.getAttribute("placeholder") || "");
    if (!name && el.tagName === "A") {
      const img = el.querySelector("img[alt]");
      if (img) name = clip(img.getAttribute("alt"));
    }
    return { name, label: label || nearby || (isField(role) ? explicit : "") };
  };

  // --- context used by fingerprints ----------------------------------------------------------------
  const parentOf = (node) => node.parentElement || (rootOf(node).host || null);
  const headingText = (el) => {
    if (/^H[1-6]$/.test(el.tagName) || el.getAttribute("role") === "heading" || el.tagName === "LEGEND" ||
        el.tagName === "CAPTION") return clip(textOf(el), 60);
    return "";
  };
  // The nearest heading, legend or dialog name above a node. Memoised per node during one snapshot or
  // resolution (long tables would otherwise rescan the same siblings for every row).
  let containerMemo = null;
  const containerOf = (node) => {
    if (containerMemo && containerMemo.has(node)) return containerMemo.get(node);
    const parent = parentOf(node);
    let found = "";
    if (parent) {
      found = containerHere(node, parent);
      if (!found && parent.tagName !== "BODY") found = containerOf(parent);
    }
    if (containerMemo) containerMemo.set(node, found);
    return found;
  };
  const containerHere = (node, parent) => {
    if (parent.tagName === "FIELDSET") {
      const legend = parent.querySelector(":scope > legend");
      if (legend) return clip(textOf(legend), 60);
    }
    const role = parent.getAttribute("role");
    if (role === "dialog" || role === "alertdialog" || parent.tagName === "DIALOG") {
      const n = explicitLabel(parent);
      if (n) return n;
    }
    let sib = node.previousElementSibling;
    for (let hops = 0; sib && hops < 40; hops += 1, sib = sib.previousElementSibling) {
      const h = headingText(sib) || (sib.children.length <= 2 && sib.firstElementChild
        ? headingText(sib.firstElementChild) : "");
      if (h) return h;
    }
    return "";
  };
  const memoised = (fn) => (...args) => {
    containerMemo = new Map();
    try { return fn(...args); } finally { containerMemo = null; }
  };
  const rowOf = (el) => {
    let node = parentOf(el);
    let cell = el;
    for (let depth = 0; depth < 8 && node; depth += 1) {
      const role = node.getAttribute("role");
      if (node.tagName === "TR" || role === "row" || node.tagName === "LI") {
        const parts = [];
        for (const c of node.children) if (c !== cell) parts.push(clip(textOf(c), 40));
        return clip(parts.filter(Boolean).join(" | "), 100);
      }
      if (/^(TABLE|FORM|BODY|UL|OL)$/.test(node.tagName)) break;
      cell = node;
      node = parentOf(node);
    }
    return "";
  };
  const shadowPath = (el) => {
    const path = [];
    let root = rootOf(el);
    while (root && root.host) { path.unshift(root.host.tagName.toLowerCase()); root = rootOf(root.host); }
    return path;
  };

  // --- sensitivity and values ----------------------------------------------------------------------
  const looksLikeNumber = (v) => CARD_OR_ID.test((v || "").trim());
  const isSensitiveField = (el) => {
    if (el.closest && el.closest("[data-finrpa-sensitive]")) return true;
    if (el.tagName === "INPUT" && (el.getAttribute("type") || "").toLowerCase() === "password") return true;
    return SENSITIVE_AUTOCOMPLETE.test(el.getAttribute("autocomplete") || "");
  };
  const maskValue = (v) => {
    const digits = v.replace(/\D/g, "");
    return "*".repeat(Math.max(digits.length - 4, 4)) + digits.slice(-4);
  };
  const valueOf = (el, role) => {
    if (!("value" in el) || role === "button" || el.tagName === "BUTTON") {
      if (el.isContentEditable) return { value: clip(el.innerText, 200), sensitive: false };
      if (role === "combobox") return { value: maskNumbers(clip(textOf(el), 200)), sensitive: false };
      return { value: null, sensitive: false };
    }
    if (el.tagName === "SELECT") {
      const picked = [...el.selectedOptions].map((o) => squash(o.label || o.text));
      return { value: picked.join(", "), sensitive: false };
    }
    if (role === "checkbox" || role === "radio" || role === "file") {
      return { value: role === "file" ? [...(el.files || [])].map((f) => f.name).join(", ") : null,
        sensitive: false };
    }
    const raw = String(el.value || "");
    if (isSensitiveField(el)) return { value: raw ? "******" : "", sensitive: true };
    if (looksLikeNumber(raw)) return { value: maskValue(raw), sensitive: true };
    return { value: clip(raw, 200), sensitive: false };
  };
  const optionsOf = (el, role) => {
    if (el.tagName === "SELECT") return [...el.options].slice(0, 100).map((o) => clip(o.label || o.text));
    if (role === "listbox" || role === "combobox") {
      const owned = el.getAttribute("aria-controls") || el.getAttribute("aria-owns");
      const box = role === "listbox" ? el : (owned ? byId(el, owned.split(/\s+/)[0]) : null);
      if (box && visible(box)) {
        return [...box.querySelectorAll("[role=option]")].filter(visible).slice(0, 100)
          .map((o) => clip(explicitLabel(o) || textOf(o)));
      }
    }
    return null;
  };
  const dateOf = (el) => {
    const v = el.getAttribute("data-date") || el.getAttribute("data-day") || el.getAttribute("title") ||
      el.getAttribute("aria-label") || "";
    return /\d{4}\s*[-/年.]\s*\d{1,2}\s*[-/月.]\s*\d{1,2}/.test(v) ? clip(v, 40) : null;
  };

  // --- the walk -----------------------------------------------------------------------------------
  const candidateRole = (el) => {
    const role = roleOf(el);
    if (role && (INTERACTIVE_ROLES.has(role) || role === "file")) return role;
    if (role && role !== "generic" && !isClickableFallback(el)) return "";
    if (/^(SCRIPT|STYLE|HEAD|META|LINK|TITLE|NOSCRIPT|TEMPLATE|SVG|PATH|OPTION|LABEL|HTML|BODY)$/i.test(el.tagName)) return "";
    return isClickableFallback(el) ? "clickable" : "";
  };
  const walk = (root, visit) => {
    const all = root.querySelectorAll("*");
    for (const el of all) {
      visit(el);
      if (el.shadowRoot) { observe(el.shadowRoot); walk(el.shadowRoot, visit); }
    }
  };
  const insideClickable = (el, chosen) => {
    for (let p = parentOf(el), d = 0; p && d < 6; p = parentOf(p), d += 1) if (chosen.has(p)) return true;
    return false;
  };
  const collect = (filterRole) => {
    const out = [];
    const chosen = new Set();
    // Resolving one interactive role needs no computed styles: only "clickable" is decided by them.
    const quick = filterRole && filterRole !== "clickable";
    walk(document, (el) => {
      if (quick && roleOf(el) !== filterRole) return;
      const role = candidateRole(el);
      if (!role || (filterRole && role !== filterRole)) return;
      if (role === "clickable" && insideClickable(el, chosen)) return;
      if (!visible(el) && !hiddenControlWithLabel(el, role)) return;
      chosen.add(el);
      out.push({ el, role });
    });
    return out;
  };
  // The elements of some interactive roles only, as collect(null) would list them: an element of such a role is
  // a candidate by its role alone, so no computed style of any other element is needed.
  const collectRoles = (roles) => {
    const wanted = new Set(roles.filter((r) => INTERACTIVE_ROLES.has(r) || r === "file"));
    const out = [];
    walk(document, (el) => {
      const role = roleOf(el);
      if (!wanted.has(role)) return;
      if (!visible(el) && !hiddenControlWithLabel(el, role)) return;
      out.push({ el, role });
    });
    return out;
  };
  // Custom checkboxes hide the real input and style its label; the input is still the thing to act on.
  const hiddenControlWithLabel = (el, role) =>
    (role === "checkbox" || role === "radio") && el.labels && [...el.labels].some(visible);

  const fingerprintOf = (item, peers) => {
    const { el, role } = item;
    const { name, label } = item.desc || describe(el, role);
    const key = role + "\u0001" + name;
    const list = peers.get(key) || [];
    return { role, name, label, container: containerOf(el), row: rowOf(el),
      index: list.indexOf(el), count: list.length };
  };
  const groupPeers = (items) => {
    const peers = new Map();
    for (const item of items) {
      item.desc = item.desc || describe(item.el, item.role);
      const key = item.role + "\u0001" + item.desc.name;
      if (!peers.has(key)) peers.set(key, []);
      peers.get(key).push(item.el);
    }
    return peers;
  };
  const rectOf = (el) => {
    let r = el.getBoundingClientRect();
    if ((r.width === 0 || r.height === 0) && el.labels && el.labels.length) r = el.labels[0].getBoundingClientRect();
    return [Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height)];
  };
  const enabled = (el) => !(el.disabled || el.getAttribute("aria-disabled") === "true" ||
    (el.closest && el.closest("fieldset[disabled]") && !el.closest("legend")) || el.closest("[inert]"));
  const elementRecord = (item, peers) => {
    const { el, role } = item;
    const fp = fingerprintOf(item, peers);
    const v = valueOf(el, role);
    const checkable = role === "checkbox" || role === "radio" || role === "switch" || role === "menuitemcheckbox";
    const ariaChecked = el.getAttribute("aria-checked");
    return {
      role, name: fp.name, label: fp.label, tag: el.tagName.toLowerCase(),
      type: el.tagName === "INPUT" ? (el.getAttribute("type") || "text").toLowerCase() : null,
      value: v.value, sensitive: v.sensitive || isSensitiveField(el), options: optionsOf(el, role),
      checked: checkable ? (("checked" in el && el.tagName === "INPUT") ? el.checked : ariaChecked === "true") : null,
      disabled: !enabled(el), readonly: !!el.readOnly || el.getAttribute("aria-readonly") === "true",
      expanded: el.hasAttribute("aria-expanded") ? el.getAttribute("aria-expanded") === "true" : null,
      required: !!el.required || el.getAttribute("aria-required") === "true",
      visible: visible(el), bbox: rectOf(el), shadow_path: shadowPath(el), date: dateOf(el),
      href: el.tagName === "A" ? clip(el.getAttribute("href") || "", 120) : null,
      fingerprint: fp,
    };
  };

  // --- page-level facts -----------------------------------------------------------------------------
  const dialogs = () => {
    const out = [];
    walk(document, (el) => {
      const role = el.getAttribute("role");
      const modal = el.getAttribute("aria-modal") === "true";
      if (!(role === "dialog" || role === "alertdialog" || (el.tagName === "DIALOG" && el.open) || modal)) return;
      if (!visible(el)) return;
      const heading = el.querySelector("h1,h2,h3,h4,[role=heading]");
      out.push({ name: explicitLabel(el) || (heading ? clip(textOf(heading)) : ""),
        text: maskNumbers(clip(el.innerText || textOf(el), 300)), modal: modal || el.tagName === "DIALOG" });
    });
    return out;
  };
  const tableCaption = (t) => {
    const cap = t.querySelector("caption");
    if (cap) return clip(textOf(cap), 60);
    const n = explicitLabel(t);
    if (n) return n;
    return containerOf(t);
  };
  const tables = () => {
    const out = [];
    walk(document, (t) => {
      if (!(t.tagName === "TABLE" || /^(table|grid|treegrid)$/.test(t.getAttribute("role") || ""))) return;
      if (!visible(t)) return;
      const headers = [...t.querySelectorAll("th,[role=columnheader]")].map((h) => clip(textOf(h), 30));
      const rows = t.tagName === "TABLE" ? [...t.rows].filter((r) => !r.querySelector("th")).length
        : t.querySelectorAll("[role=row]").length - (headers.length ? 1 : 0);
      if (!headers.length && (rows < 2 || t.querySelector(CONTROLS))) return;  // layout tables
      out.push({ caption: tableCaption(t), headers: headers.slice(0, 30), row_count: Math.max(rows, 0) });
    });
    return out;
  };
  const headings = () => {
    const out = [];
    walk(document, (el) => {
      if (/^H[1-6]$/.test(el.tagName) && visible(el)) out.push({ level: Number(el.tagName[1]), text: clip(textOf(el)) });
    });
    return out.slice(0, 40);
  };
  const rawText = () => {
    let text = document.body ? document.body.innerText || "" : "";
    walk(document, (el) => {
      if (!el.shadowRoot || !visible(el)) return;
      for (const child of el.shadowRoot.children) if (child.innerText) text += "\n" + child.innerText;
    });
    return text.replace(/[ \t]+/g, " ").replace(/\n\s*\n+/g, "\n").trim();
  };
  const visibleText = (limit) => {
    const text = rawText();
    return maskNumbers(text.length > limit ? text.slice(0, limit) : text);
  };
  const counters = () => ({ doc: state.doc, nav: state.nav, epoch: state.epoch, changes: state.changes,
    url: location.href, scroll: [Math.round(scrollX), Math.round(scrollY)], scrolls: state.scrolls });

  // --- occlusion ----------------------------------------------------------------------------------
  const deepHit = (x, y) => {
    let hit = document.elementFromPoint(x, y);
    while (hit && hit.shadowRoot) {
      const inner = hit.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return hit;
  };
  const composedContains = (outer, node) => {
    for (let n = node; n; n = n.parentNode || n.host) if (n === outer) return true;
    return false;
  };
  const hitsTarget = (el, x, y) => {
    const hit = deepHit(x, y);
    if (!hit) return false;
    if (composedContains(el, hit)) return true;
    if (el.labels) for (const l of el.labels) if (composedContains(l, hit)) return true;
    return false;
  };
  const centreOf = (el) => {
    let r = el.getBoundingClientRect();
    if ((r.width < 2 || r.height < 2) && el.labels && el.labels.length) r = el.labels[0].getBoundingClientRect();
    return [r.left + r.width / 2, r.top + r.height / 2, r];
  };
  const inViewport = (r) => r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;

  // --- resolution by fingerprint ---------------------------------------------------------------------
  const sameText = (a, b) => squash(a) === squash(b);
  // ``scroll`` false: a target outside the viewport is reported ("must_scroll") instead of scrolled into view, so
  // that resolving never changes what the page shows (an after-shot of the previous action may be in flight).
  const resolve = (fp, scroll = true) => {
    const items = collect(fp.role);
    const peers = groupPeers(items);
    const same = peers.get(fp.role + "\u0001" + fp.name) || [];
    if (!same.length) return { status: "not_found", count: 0 };
    const byEl = new Map(items.map((i) => [i.el, i]));
    const matching = same.filter((el) => {
      const f = fingerprintOf(byEl.get(el), peers);
      return sameText(f.label, fp.label) && sameText(f.container, fp.container) && sameText(f.row, fp.row);
    });
    if (!matching.length) return { status: "fingerprint_mismatch", count: same.length };
    let el = matching[0];
    if (matching.length > 1) {
      if (same.length !== fp.count || !matching.includes(same[fp.index])) {
        return { status: "ambiguous", count: matching.length };
      }
      el = same[fp.index];
    }
    return inspect(el, fp.role, same.length, scroll);
  };
  const inspect = (el, role, count, scroll) => {
    const visibleNow = visible(el) || hiddenControlWithLabel(el, role);
    if (!visibleNow) return { status: "not_visible", count };
    if (!enabled(el)) return { status: "disabled", count };
    let [x, y, r] = centreOf(el);
    if (!inViewport(r)) {
      if (!scroll) return { status: "must_scroll", count };
      (el.labels && el.labels.length && r !== el.getBoundingClientRect() ? el.labels[0] : el)
        .scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
      [x, y, r] = centreOf(el);
    }
    if (!hitsTarget(el, x, y)) return { status: "occluded", count };
    const token = "r" + (++state.seq);
    state.taken.set(token, el);
    return { status: "ok", count, token, point: [x, y], counters: counters(), bbox: rectOf(el) };
  };
  const take = (token) => { const el = state.taken.get(token); state.taken.clear(); return el || null; };
  // One round trip: refuse a stale snapshot, resolve, and hand back the element itself (or why not).
  const resolveTake = (fp, expect, scroll = true) => {
    if (expect && (expect.doc !== state.doc || expect.epoch !== state.epoch ||
        (expect.nav !== null && expect.nav !== state.nav))) return { status: "stale", counters: counters() };
    const result = resolve(fp, scroll);
    if (result.status !== "ok") return result;
    state.lastResolve = result;
    return take(result.token);
  };

  // --- masking for screenshots -----------------------------------------------------------------------
  // Flat boxes (custom <finrpa-mask> elements, ignored by the change counters) painted over sensitive
  // content just before a capture and removed right after. All boxes live in one fixed, click-through
  // layer: one composited layer per capture instead of one per box (several times cheaper to paint).
  const MASK_LAYER = "all:initial;display:block;position:fixed;left:0;top:0;width:0;height:0;overflow:visible;" +
    "z-index:2147483647;pointer-events:none;margin:0;";
  const MASK_STYLE = "all:initial;display:block;position:absolute;pointer-events:none;margin:0;";
  const maskLayer = () => {
    let layer = state.maskLayer;
    if (!layer || !layer.isConnected) {
      layer = document.createElement("finrpa-mask");
      layer.setAttribute("style", MASK_LAYER);
      (document.documentElement || document.body).appendChild(layer);
      state.maskLayer = layer;
    }
    return layer;
  };
  const maskBox = (rect, colour, layer) => {
    const box = document.createElement("finrpa-mask");
    box.setAttribute("style", MASK_STYLE + `left:${rect.left}px;top:${rect.top}px;width:${rect.width}px;` +
      `height:${rect.height}px;background:${colour};`);
    (layer || maskLayer()).appendChild(box);
  };
  const sensitiveNow = (el, textNumbers) => {
    if (/^(INPUT|TEXTAREA)$/.test(el.tagName)) return isSensitiveField(el) || looksLikeNumber(String(el.value || ""));
    if (el.isContentEditable) return looksLikeNumber(el.innerText || "");
    if (!textNumbers || el.childElementCount !== 0 || /^(SCRIPT|STYLE|TEXTAREA)$/.test(el.tagName)) return false;
    NUMBER_IN_TEXT.lastIndex = 0;
    return NUMBER_IN_TEXT.test(el.textContent || "");
  };
  const maskSensitive = (textNumbers, colour) => {
    clearMasks();
    const rects = [];
    walk(document, (el) => {
      if (ours(el) || !sensitiveNow(el, textNumbers) || !visible(el)) return;
      const r = el.getBoundingClientRect();
      if (r.bottom < 0 || r.right < 0 || r.top > innerHeight || r.left > innerWidth) return;
      rects.push({ left: r.left - 1, top: r.top - 1, width: r.width + 2, height: r.height + 2 });
    });
    if (rects.length) {  // measure everything first, then write: one layout, not one per box
      const layer = maskLayer();
      for (const r of rects) maskBox(r, colour, layer);
    }
    return rects.length;
  };
  // The state a capture shows: counters read as the masks go up and again as they come down. When both
  // readings agree, nothing in the document changed while the PNG was taken.
  const maskForShot = (textNumbers, colour) => ({ count: maskSensitive(textNumbers, colour), counters: counters() });
  const clearMasks = () => {
    document.querySelectorAll("finrpa-mask").forEach((m) => m.remove());
    state.maskLayer = null;
    return counters();
  };

  // --- the click guard ---------------------------------------------------------------------------------
  // A click dispatched after FinRPA's own checks (resolution found the target visible, enabled and on top) skips
  // Playwright's wait for a stable position and its hit-target check; this guard keeps what that check
  // guarantees. The first trusted press of the click decides, by the element the browser delivered it to, whether
  // the click landed on the target (or one of its labels); if it did not, that press and the rest of the click
  // are stopped before any page handler sees them. ``armClick`` answers the point Playwright's click will use
  // (the centre of the element's one box) when the target is there now, else null: the caller then uses
  // Playwright's own checked click.
  const GUARDED_EVENTS = ["pointerdown", "mousedown", "pointerup", "mouseup", "click", "auxclick", "dblclick", "contextmenu"];
  const disarmClick = () => {
    const guard = state.clickGuard;
    if (!guard) return null;
    state.clickGuard = null;
    clearTimeout(guard.timer);
    for (const type of GUARDED_EVENTS) window.removeEventListener(type, guard.listener, true);
    return guard.landed;
  };
  const armClick = (el) => {
    disarmClick();
    if (!el || !el.isConnected) return null;
    const rects = el.getClientRects();
    if (rects.length !== 1) return null;
    const r = rects[0];
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    if (!(r.width >= 1 && r.height >= 1) || x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return null;
    if (!hitsTarget(el, x, y)) return null;
    const owners = [el, ...(el.labels || [])];
    const guard = { landed: null, timer: 0, listener: null };
    guard.listener = (e) => {
      if (!e.isTrusted) return;
      if (guard.landed === null) { const path = e.composedPath(); guard.landed = owners.some((o) => path.includes(o)); }
      if (!guard.landed) { e.preventDefault(); e.stopPropagation(); e.stopImmediatePropagation(); }
    };
    for (const type of GUARDED_EVENTS) window.addEventListener(type, guard.listener, true);
    guard.timer = setTimeout(() => { if (state.clickGuard === guard) disarmClick(); }, 10000);  // never left behind
    state.clickGuard = guard;
    return [x, y];
  };
  // After the click: did its first press land on the target (null: no press reached this document), with the
  // counters the target's resolution read (the page before the click). Not armed: this is another document (the
  // click navigated the frame).
  const clickLanded = () => {
    const armed = !!state.clickGuard;
    return { armed, landed: disarmClick(), last: state.lastResolve || null };
  };

  const optionFor = (el, wanted) => {
    const w = squash(wanted);
    const opts = [...el.options];
    const hit = opts.find((o) => squash(o.label || o.text) === w) || opts.find((o) => o.value === wanted);
    return hit ? hit.value : null;
  };
  const readState = (el, expected) => {
    const sensitive = isSensitiveField(el);
    let value;
    if (el.tagName === "SELECT") value = [...el.selectedOptions].map((o) => squash(o.label || o.text)).join(", ");
    else if ("value" in el && el.tagName !== "BUTTON") value = String(el.value);
    else value = squash(el.innerText || "");
    let matches = null;
    if (expected !== null && expected !== undefined) {
      matches = el.tagName === "SELECT"
        ? [...el.selectedOptions].some((o) => squash(o.label || o.text) === squash(expected) || o.value === expected)
        : value === expected || squash(value) === squash(expected);
    }
    return {
      value: sensitive ? (value ? "******" : "") : (looksLikeNumber(value) ? maskValue(value) : clip(value, 200)),
      matches, sensitive,
      checked: "checked" in el && el.tagName === "INPUT" ? el.checked : el.getAttribute("aria-checked") === "true",
      files: el.tagName === "INPUT" && el.files ? [...el.files].map((f) => f.name) : [],
      connected: el.isConnected, counters: counters(),
    };
  };
  const cellText = (c) => squash(c.innerText || c.textContent || "");
  const extractTable = (caption, headers, max) => {
    let found = null;
    walk(document, (t) => {
      if (found || !(t.tagName === "TABLE" || /^(table|grid|treegrid)$/.test(t.getAttribute("role") || ""))) return;
      if (!visible(t)) return;
      const hs = [...t.querySelectorAll("th,[role=columnheader]")].map((h) => clip(textOf(h), 30));
      if ((caption === null || tableCaption(t) === caption) && (headers === null || hs.join("|") === headers.join("|"))) {
        found = t;
      }
    });
    if (!found) return null;
    const rowEls = found.tagName === "TABLE" ? [...found.rows] : [...found.querySelectorAll("[role=row]")];
    // A header row holds only header cells; a row that starts with a row header (<th scope=row>) followed
    // by data cells is a key/value row and is data, with the row header as its first cell.
    const cellsOf = (r) => [...(r.cells || r.querySelectorAll("[role=cell],[role=gridcell],[role=rowheader],[role=columnheader]"))];
    const isHeaderCell = (c) => (c.tagName === "TH" && c.getAttribute("scope") !== "row") || c.getAttribute("role") === "columnheader";
    const headerRows = rowEls.filter((r) => { const cs = cellsOf(r); return cs.length > 0 && cs.every(isHeaderCell); });
    const hs = headerRows.flatMap((r) => cellsOf(r).map(cellText));
    const body = rowEls.filter((r) => !headerRows.includes(r));
    const rows = body.slice(0, max).map((r) => cellsOf(r).map(cellText));
    return { caption: tableCaption(found), headers: hs, rows, truncated: body.length > max };
  };

  // --- custom widgets: calendars and option lists -------------------------------------------------------
  const MONTH_TEXT = /(\d{4})\s*[年\-/.]\s*(\d{1,2})(?!\d)/;
  const EN_MONTH = /\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?,?\s+(\d{4})/i;
  const EN_NAMES = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
  const PREV = /^(上个?月|上一月|前一月|‹|<|«|←|prev|previous|previous month)$/i;
  const NEXT = /^(下个?月|下一月|后一月|›|>|»|→|next|next month)$/i;
  const monthOf = (text) => {
    const cn = text.match(MONTH_TEXT);
    if (cn) return [Number(cn[1]), Number(cn[2])];
    const en = text.match(EN_MONTH);
    return en ? [Number(en[2]), EN_NAMES.indexOf(en[1].toLowerCase()) + 1] : null;
  };
  const dateParts = (text) => {
    const m = (text || "").match(/(\d{4})\D{0,3}(\d{1,2})\D{0,3}(\d{1,2})/);
    return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
  };
  const YEAR_SELECT = /年|year/i;
  const MONTH_SELECT = /月|month/i;
  const dayCell = (item) => {
    const name = item.desc.name;
    const full = dateParts(name) || dateParts(dateOf(item.el) || "");
    if (/^\d{1,2}$/.test(name) && Number(name) >= 1 && Number(name) <= 31) return { item, day: Number(name), full };
    return full ? { item, day: full[2], full } : null;
  };
  const shownMonth = (cells) => {
    const counts = new Map();
    for (const c of cells) if (c.full) { const k = c.full[0] * 100 + c.full[1]; counts.set(k, (counts.get(k) || 0) + 1); }
    let best = null;
    for (const [k, n] of counts) if (!best || n > best[1]) best = [k, n];
    return best && best[1] >= 28 ? [Math.floor(best[0] / 100), best[0] % 100] : null;
  };
  const monthRun = (cells, ym) => {
    if (ym && cells.every((c) => c.full)) return cells.filter((c) => c.full[0] === ym[0] && c.full[1] === ym[1]);
    const start = cells.findIndex((c) => c.day === 1);
    const end = cells.findIndex((c, i) => i > start && c.day === 1);
    return cells.slice(start, end === -1 ? undefined : end);
  };
  const selectInfo = (item, peers) => item ? { fingerprint: fingerprintOf(item, peers),
    options: [...item.el.options].map((o) => ({ label: squash(o.label || o.text), value: o.value })) } : null;
  const calendars = () => {
    const items = collect(null);
    const peers = groupPeers(items);
    const grids = new Map();
    for (const item of items) {
      const cell = dayCell(item);
      if (!cell) continue;
      const grid = item.el.closest("table,[role=grid]") || (item.el.parentElement && item.el.parentElement.parentElement);
      if (!grid) continue;
      if (!grids.has(grid)) grids.set(grid, []);
      grids.get(grid).push(cell);
    }
    const out = [];
    for (const [grid, cells] of grids) {
      if (cells.length < 28) continue;
      let ym = shownMonth(cells);
      let scope = grid;
      for (let depth = 0; depth < 4 && scope; depth += 1) {
        scope = parentOf(scope);
        if (!ym && scope) ym = monthOf(squash(textOf(scope)));
        if (ym && scope && items.some((i) => scope.contains(i.el) && (PREV.test(i.desc.name) || NEXT.test(i.desc.name)))) break;
      }
      if (!ym) continue;
      const around = items.filter((i) => scope && scope.contains(i.el) && !grid.contains(i.el));
      const nav = (re) => { const hit = around.find((i) => re.test(i.desc.name)); return hit ? fingerprintOf(hit, peers) : null; };
      const selects = around.filter((i) => i.el.tagName === "SELECT");
      const yearSel = selects.find((i) => YEAR_SELECT.test(i.desc.name));
      const monthSel = selects.find((i) => i !== yearSel && MONTH_SELECT.test(i.desc.name));
      const days = {};
      for (const c of monthRun(cells, ym)) days[String(c.day)] = fingerprintOf(c.item, peers);
      out.push({ year: ym[0], month: ym[1], prev: nav(PREV), next: nav(NEXT), days,
        year_select: selectInfo(yearSel, peers), month_select: selectInfo(monthSel, peers) });
    }
    return out;
  };
  const optionFingerprints = (name) => {
    const items = collect(null);
    const peers = groupPeers(items);
    const named = items.filter((i) => sameText(i.desc.name, name) && visible(i.el));
    const options = named.filter((i) => i.role === "option");
    const chosen = options.length ? options : named.filter((i) => !isField(i.role));
    return chosen.map((i) => fingerprintOf(i, peers));
  };
  const visibleOptionNames = () => collect(null)
    .filter((i) => i.role === "option" || (i.role === "clickable" && i.el.tagName === "LI"))
    .map((i) => describe(i.el, i.role).name).slice(0, 50);

  const nextChange = (since, ms) => new Promise((resolve) => {
    if (state.changes > since) { resolve(counters()); return; }
    const timer = setTimeout(() => resolve(counters()), ms);
    state.waiters.push(() => { clearTimeout(timer); resolve(counters()); });
  });

  // True on the first change after a reading (document token and change count) of this frame, at once when
  // the frame shows another document by now; false after ms without one.
  const changeAfter = (doc, since, ms) => new Promise((resolve) => {
    if (doc !== state.doc || state.changes > since) { resolve(true); return; }
    const timer = setTimeout(() => resolve(false), ms);
    state.waiters.push(() => { clearTimeout(timer); resolve(true); });
  });

  const snapshotData = (opts) => {
    const items = opts.roles ? collectRoles(opts.roles) : collect(null);
    const peers = groupPeers(items);
    const max = opts.maxElements === undefined ? 1500 : opts.maxElements;
    return {
      counters: counters(), title: document.title || "",
      elements: items.slice(0, max).map((i) => elementRecord(i, peers)), total_elements: items.length,
      dialogs: dialogs(), tables: tables(), headings: headings(),
      text: visibleText(opts.maxText || 4000),
      html_digest_source: opts.withHtml ? document.documentElement.outerHTML : null,
    };
  };
  // One JSON string: Playwright's structured serialisation of thousands of small objects is far slower.
  const snapshot = (opts) => stringify(snapshotData(opts));
  // A table page in one call: the rows of the table with this caption and headers (null when absent) and the
  // frame's snapshot (limited to opts.roles), read in the same task so both show the same page.
  const tablePage = (caption, headers, max, opts) =>
    stringify({ table: extractTable(caption, headers, max), snapshot: snapshotData(opts) });
  const pageText = (limit) => visibleText(limit);

  const api = { snapshot: memoised(snapshot), pageText, resolve: memoised(resolve), take, resolveTake: memoised(resolveTake), lastResolve: () => state.lastResolve || null, counters, maskSensitive, maskForShot, clearMasks, armClick, clickLanded, nextChange, changeAfter, hitsTarget,
    frameHit: (iframe, x, y) => {
      if (x === null) {
        // The point the frame's own page model resolved last, read through the frame when it is same-origin
        // (a cross-origin frame answers "point": the caller asks the frame for it).
        let last = null;
        try { const child = iframe.contentWindow.__finrpa_pm; last = child ? child.lastResolve() : null; } catch (e) { last = null; }
        if (!last || !last.point) return { point: null };
        [x, y] = last.point;
      }
      const r = iframe.getBoundingClientRect();
      const cs = getComputedStyle(iframe);
      const px = r.left + iframe.clientLeft + parseFloat(cs.paddingLeft) + x;
      const py = r.top + iframe.clientTop + parseFloat(cs.paddingTop) + y;
      return { hit: hitsTarget(iframe, px, py), point: [px, py] };
    },
    frameOffset: (iframe) => {
      const r = iframe.getBoundingClientRect();
      const cs = getComputedStyle(iframe);
      return [r.left + iframe.clientLeft + parseFloat(cs.paddingLeft), r.top + iframe.clientTop + parseFloat(cs.paddingTop)];
    },
    markElementSensitive: (el) => { el.setAttribute("data-finrpa-sensitive", ""); },
    prepareFill: (el, sensitive, isDate) => {
      // A fill up to the typing, in one call: the sensitive mark first (every later screenshot masks the field),
      // then what Playwright's fill does before it types (its visible, enabled and editable checks, the field's
      // text selected and the field focused). "focused": type now. A read-only field given a date answers
      // "readonly" (its date comes from its picker); anything else Playwright's fill handles itself (its waits
      // for a field to become editable, other input types, contenteditable) answers "fallback".
      if (sensitive) el.setAttribute("data-finrpa-sensitive", "");
      const readOnly = !!el.readOnly || el.getAttribute("aria-readonly") === "true";
      if (isDate && readOnly) return "readonly";
      const textarea = el.tagName === "TEXTAREA";
      const typed = textarea || (el.tagName === "INPUT" && TYPE_INTO.has((el.type || "").toLowerCase()));
      if (!typed || readOnly || !el.isConnected || !visible(el) || !enabled(el)) return "fallback";
      if (textarea) { el.selectionStart = 0; el.selectionEnd = el.value.length; } else el.select();
      el.focus();
      return el.getRootNode().activeElement === el ? "focused" : "fallback";
    },
    maskElement: (el, colour) => { maskBox(el.getBoundingClientRect(), colour); return true; },
    readState: (el, expected) => readState(el, expected),
    optionFor: (el, wanted) => optionFor(el, wanted),
    selectOption: async (el, wanted) => {
      // Choose the option as a user's choice reaches the page (the events Playwright's selectOption sends: input,
      // then change, after a visible and enabled check), and read the field back, all in one call. The read-back
      // waits for the tasks the change handlers queued (a portal that puts the field back does so in one).
      if (el.tagName !== "SELECT") return { tag: el.tagName };
      const value = optionFor(el, wanted);
      if (value === null) return { tag: "SELECT", value, options: [...el.options].slice(0, 20).map((o) => o.label || o.text) };
      if (!visible(el)) return { tag: "SELECT", value, refused: "not_visible" };
      const option = [...el.options].find((o) => o.value === value);
      if (!enabled(el)) return { tag: "SELECT", value, refused: "disabled" };
      if (option.disabled) return { tag: "SELECT", value, refused: "option_disabled" };
      el.value = undefined;
      option.selected = true;
      el.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
      el.dispatchEvent(new Event("change", { bubbles: true }));
      await new Promise((done) => setTimeout(done, 0));
      return { tag: "SELECT", value, state: readState(el, wanted) };
    },
    hasText: (t) => rawText().includes(t),
    elementState: (role, name) => {
      const items = collect(role || null).filter((i) => describe(i.el, i.role).name === name);
      return { count: items.length, enabled: items.some((i) => enabled(i.el)),
        checked: items.some((i) => readState(i.el, null).checked) };
    },
    extractTable: (caption, headers, max) => extractTable(caption, headers, max),
    tablePage: memoised(tablePage),
    calendars: memoised(calendars), optionFingerprints: memoised(optionFingerprints), visibleOptionNames,
    describeElement: (el) => { const role = roleOf(el) || "clickable"; return describe(el, role); },
    visible, enabled, maskNumbers,
  };
  Object.defineProperty(window, "__finrpa_pm", { value: Object.freeze(api), enumerable: false });
})();
