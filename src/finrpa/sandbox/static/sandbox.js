/* FinRPA sandbox portals: the small widgets real portals build by hand (no framework, no CDN).
   Every widget is initialised by an inline call that names its elements by this render's ids. */
(function () {
  "use strict";
  var FS = {};
  function $(id, doc) { return (doc || document).getElementById(id); }
  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function pad(n) { return (n < 10 ? "0" : "") + n; }
  function iso(d) { return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()); }
  function parseIso(s) {
    var m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s || "");
    if (!m) return null;
    var d = new Date(+m[1], +m[2] - 1, +m[3]);
    return d.getMonth() === +m[2] - 1 ? d : null;
  }
  function fire(input) {
    input.dispatchEvent(new Event("input", { bubbles: true }));
    input.dispatchEvent(new Event("change", { bubbles: true }));
  }

  FS.refreshImage = function (id) { var img = $(id); img.src = img.src.split("?")[0] + "?t=" + Date.now(); };

  /* Custom date picker: a text input (readonly in layout v2) that opens a calendar with month navigation. */
  FS.datePicker = function (inputId, opts) {
    var input = $(inputId), popup = null, shown = null, refocusing = false;
    var weekdays = opts.lang === "zh" ? ["日", "一", "二", "三", "四", "五", "六"] : ["Su", "Mo", "Tu", "We", "Th", "Fr", "Sa"];
    function dayLabel(d) {
      return opts.lang === "zh" ? d.getFullYear() + "年" + (d.getMonth() + 1) + "月" + d.getDate() + "日" : iso(d);
    }
    function close() { if (popup) { popup.remove(); popup = null; input.setAttribute("aria-expanded", "false"); } }
    function pick(d) {
      input.value = d ? iso(d) : ""; fire(input); close();
      refocusing = true; input.focus(); refocusing = false; // give focus back without reopening
    }
    function navButton(label, text, delta) {
      var b = el("button", { type: "button", "aria-label": label, "class": opts.cls.nav }, text);
      b.addEventListener("click", function () { shown = new Date(shown.getFullYear(), shown.getMonth() + delta, 1); draw(); });
      return b;
    }
    function select(label, values, current, onChange) {
      var s = el("select", { "aria-label": label });
      values.forEach(function (v) { var o = el("option", { value: v[0] }, v[1]); if (v[0] === current) o.selected = true; s.appendChild(o); });
      s.addEventListener("change", function () { onChange(+s.value); draw(); });
      return s;
    }
    function head() {
      var h = el("div", { "class": opts.cls.head }), years = [], months = [], now = new Date();
      for (var y = 2015; y <= now.getFullYear() + 1; y++) years.push([String(y), opts.lang === "zh" ? y + "年" : String(y)]);
      for (var m = 1; m <= 12; m++) months.push([String(m), opts.lang === "zh" ? m + "月" : String(m)]);
      h.appendChild(navButton(opts.labels.prev, "‹", -1));
      h.appendChild(select(opts.labels.year, years, String(shown.getFullYear()), function (v) { shown = new Date(v, shown.getMonth(), 1); }));
      h.appendChild(select(opts.labels.month, months, String(shown.getMonth() + 1), function (v) { shown = new Date(shown.getFullYear(), v - 1, 1); }));
      h.appendChild(navButton(opts.labels.next, "›", 1));
      return h;
    }
    function grid() {
      var table = el("table", { role: "grid", "class": opts.cls.grid }), tr = el("tr"), selected = parseIso(input.value);
      weekdays.forEach(function (w) { tr.appendChild(el("th", { scope: "col" }, w)); });
      table.appendChild(el("thead")).appendChild(tr);
      var body = table.appendChild(el("tbody")), start = new Date(shown.getFullYear(), shown.getMonth(), 1 - shown.getDay());
      for (var week = 0; week < 6; week++) {
        tr = body.appendChild(el("tr"));
        for (var i = 0; i < 7; i++) {
          var d = new Date(start.getFullYear(), start.getMonth(), start.getDate() + week * 7 + i);
          var cls = opts.cls.day + (d.getMonth() !== shown.getMonth() ? " " + opts.cls.other : "");
          if (selected && iso(d) === iso(selected)) cls += " " + opts.cls.selected;
          var b = el("button", { type: "button", "class": cls, "aria-label": dayLabel(d) }, String(d.getDate()));
          b.addEventListener("click", pick.bind(null, d));
          tr.appendChild(el("td", { role: "gridcell" })).appendChild(b);
        }
      }
      return table;
    }
    function foot() {
      var f = el("div", { "class": opts.cls.foot });
      var today = el("button", { type: "button", "class": opts.cls.btn }, opts.labels.today);
      today.addEventListener("click", function () { pick(new Date()); });
      var clear = el("button", { type: "button", "class": opts.cls.btn }, opts.labels.clear);
      clear.addEventListener("click", function () { pick(null); });
      f.appendChild(today); f.appendChild(clear);
      return f;
    }
    function draw() {
      popup.textContent = "";
      popup.appendChild(head()); popup.appendChild(grid()); popup.appendChild(foot());
    }
    function open() {
      if (popup || refocusing) return;
      var value = parseIso(input.value) || new Date();
      shown = new Date(value.getFullYear(), value.getMonth(), 1);
      popup = el("div", { role: "dialog", "aria-label": input.labels && input.labels[0] ? input.labels[0].textContent.replace("*", "") : "", "class": opts.cls.popup });
      input.parentNode.style.position = "relative";
      input.parentNode.insertBefore(popup, input.nextSibling);
      input.setAttribute("aria-expanded", "true");
      draw();
    }
    input.addEventListener("input", function () { // typed dates move the open calendar, as real widgets do
      var typed = parseIso(input.value);
      if (popup && typed) { shown = new Date(typed.getFullYear(), typed.getMonth(), 1); draw(); }
    });
    input.addEventListener("click", open);
    input.addEventListener("focus", open);
    input.addEventListener("keydown", function (e) { if (e.key === "Escape" || e.key === "Tab") close(); });
    document.addEventListener("mousedown", function (e) { if (popup && !popup.contains(e.target) && e.target !== input) close(); });
  };

  /* 人民币大写, the same rules as the server's amount_in_words. */
  var DIGITS = "零壹贰叁肆伍陆柒捌玖", UNITS = ["", "拾", "佰", "仟"], SECTIONS = ["", "万", "亿", "万亿"];
  function sectionWords(n) {
    var words = "", zero = false;
    for (var pos = 3; pos >= 0; pos--) {
      var d = Math.floor(n / Math.pow(10, pos)) % 10;
      if (d === 0) { zero = words !== ""; } else { words += (zero ? "零" : "") + DIGITS[d] + UNITS[pos]; zero = false; }
    }
    return words;
  }
  FS.amountInWords = function (text) {
    var clean = String(text).replace(/[,，\s]/g, "");
    if (!/^\d{1,13}(\.\d{1,2})?$/.test(clean) || +clean <= 0) return "";
    var cents = Math.round(parseFloat(clean) * 100), yuan = Math.floor(cents / 100), jiao = Math.floor(cents / 10) % 10, fen = cents % 10;
    var parts = [], index = 0, needZero = false;
    while (yuan > 0) {
      var section = yuan % 10000;
      if (section) parts.unshift(sectionWords(section) + SECTIONS[index] + (needZero ? "零" : ""));
      needZero = (section > 0 && section < 1000) || (section === 0 && parts.length > 0);
      yuan = Math.floor(yuan / 10000); index++;
    }
    var integer = parts.join("").replace(/零+$/, ""), out = integer ? integer + "元" : "";
    if (!jiao && !fen) return (out || "零元") + "整";
    if (jiao) out += DIGITS[jiao] + "角"; else if (integer) out += "零";
    return out + (fen ? DIGITS[fen] + "分" : "整");
  };
  FS.amountWords = function (inputId, outId) {
    var input = $(inputId), out = $(outId);
    function show() { out.textContent = FS.amountInWords(input.value); }
    input.addEventListener("input", show); show();
  };

  /* Confirm dialog: a custom modal listing what is about to be submitted, with confirm and cancel. */
  FS.confirmDialog = function (cfg) {
    var form = $(cfg.form), mask = $(cfg.dialog), details = $(cfg.details), confirmBtn = $(cfg.confirm);
    function valueOf(f) {
      if (f.amountOf) return FS.amountInWords($(f.amountOf).value);
      var input = $(f.input);
      return input.tagName === "SELECT" ? (input.selectedIndex >= 0 ? input.options[input.selectedIndex].text : "") : input.value.trim();
    }
    function looksComplete() {
      return cfg.fields.every(function (f) { return f.amountOf || valueOf(f) !== ""; }) && FS.amountInWords($(cfg.amount).value) !== "";
    }
    function hide() { mask.hidden = true; }
    form.addEventListener("submit", function (e) {
      if (!looksComplete()) return; // the server answers with the messages next to each field
      e.preventDefault();
      details.textContent = "";
      cfg.fields.forEach(function (f) { details.appendChild(el("dt", {}, f.label)); details.appendChild(el("dd", {}, valueOf(f))); });
      mask.hidden = false; confirmBtn.disabled = false; confirmBtn.focus();
    });
    confirmBtn.addEventListener("click", function () { confirmBtn.disabled = true; hide(); form.submit(); });
    $(cfg.cancel).addEventListener("click", hide);
    document.addEventListener("keydown", function (e) { if (e.key === "Escape" && !mask.hidden) hide(); });
  };

  /* PDF export built in the browser from the query's rows, saved through a Blob URL. */
  function utf16hex(text) {
    var out = "";
    for (var i = 0; i < text.length; i++) out += ("000" + text.charCodeAt(i).toString(16)).slice(-4);
    return "<" + out.toUpperCase() + ">";
  }
  FS.buildPdf = function (title, lines) {
    var perPage = 40, pages = [], objects = [], i;
    for (i = 0; i < Math.max(lines.length, 1); i += perPage) pages.push(lines.slice(i, i + perPage));
    objects.push("<< /Type /Catalog /Pages 2 0 R >>");
    var kids = pages.map(function (_, n) { return (6 + n * 2) + " 0 R"; }).join(" ");
    objects.push("<< /Type /Pages /Kids [" + kids + "] /Count " + pages.length + " >>");
    objects.push("<< /Type /Font /Subtype /Type0 /BaseFont /STSong-Light /Encoding /UniGB-UCS2-H /DescendantFonts [4 0 R] >>");
    objects.push("<< /Type /Font /Subtype /CIDFontType0 /BaseFont /STSong-Light /CIDSystemInfo << /Registry (Adobe) /Ordering (GB1) /Supplement 2 >> /FontDescriptor 5 0 R /DW 1000 >>");
    objects.push("<< /Type /FontDescriptor /FontName /STSong-Light /Flags 6 /FontBBox [-25 -254 1000 880] /ItalicAngle 0 /Ascent 880 /Descent -120 /CapHeight 880 /StemV 93 >>");
    pages.forEach(function (pageLines, n) {
      var stream = "BT /F1 12 Tf 40 560 Td " + utf16hex(title + "  (" + (n + 1) + "/" + pages.length + ")") + " Tj ET\n";
      pageLines.forEach(function (line, k) { stream += "BT /F1 8 Tf 40 " + (536 - k * 12.5) + " Td " + utf16hex(line) + " Tj ET\n"; });
      objects.push("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 842 595] /Resources << /Font << /F1 3 0 R >> >> /Contents " + (7 + n * 2) + " 0 R >>");
      objects.push("<< /Length " + stream.length + " >>\nstream\n" + stream + "endstream");
    });
    var pdf = "%PDF-1.4\n", offsets = [];
    objects.forEach(function (body, n) { offsets.push(pdf.length); pdf += (n + 1) + " 0 obj\n" + body + "\nendobj\n"; });
    var xref = pdf.length;
    pdf += "xref\n0 " + (objects.length + 1) + "\n0000000000 65535 f \n";
    offsets.forEach(function (o) { pdf += ("000000000" + o).slice(-10) + " 00000 n \n"; });
    return pdf + "trailer\n<< /Size " + (objects.length + 1) + " /Root 1 0 R >>\nstartxref\n" + xref + "\n%%EOF\n";
  };
  FS.pdfExport = function (buttonId, url, filename, title) {
    $(buttonId).addEventListener("click", function () {
      fetch(url, { credentials: "same-origin" }).then(function (r) { return r.json(); }).then(function (data) {
        var lines = [data.holder + "  " + data.account + "  " + data.start + " ~ " + data.end];
        data.rows.forEach(function (row) { lines.push(row.join("  ")); });
        var blob = new Blob([FS.buildPdf(title, lines)], { type: "application/pdf" });
        var a = el("a", { href: URL.createObjectURL(blob), download: filename });
        document.body.appendChild(a); a.click();
        setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
      });
    });
  };

  /* Custom dropdown: a div combobox with a listbox of options (no <select>), writing a hidden input. */
  FS.dropdown = function (cfg) {
    var face = $(cfg.face), list = $(cfg.list), hidden = $(cfg.hidden), options = Array.prototype.slice.call(list.children), active = -1;
    function setOpen(open) { list.hidden = !open; face.setAttribute("aria-expanded", String(open)); }
    function choose(option) {
      options.forEach(function (o) { o.setAttribute("aria-selected", String(o === option)); });
      face.textContent = option.textContent; hidden.value = option.getAttribute("data-value"); fire(hidden); setOpen(false);
    }
    function highlight(i) {
      active = (i + options.length) % options.length;
      options.forEach(function (o, k) { o.style.background = k === active ? "#dbeafe" : ""; });
      face.setAttribute("aria-activedescendant", options[active].id);
    }
    face.addEventListener("click", function () { setOpen(list.hidden); });
    options.forEach(function (o) { o.addEventListener("click", function () { choose(o); }); });
    face.addEventListener("keydown", function (e) {
      if (e.key === "ArrowDown" || e.key === "ArrowUp") { e.preventDefault(); setOpen(true); highlight(active + (e.key === "ArrowDown" ? 1 : -1)); }
      else if (e.key === "Enter" || e.key === " ") { e.preventDefault(); if (!list.hidden && active >= 0) choose(options[active]); else setOpen(true); }
      else if (e.key === "Escape") setOpen(false);
    });
    document.addEventListener("mousedown", function (e) { if (!face.parentNode.contains(e.target)) setOpen(false); });
  };

  /* Beneficiary rows live in a same-origin iframe; the parent form copies them into a hidden field. */
  FS.beneficiaryRows = function (cfg) {
    var body = $(cfg.body), template = $(cfg.template);
    function renumber() { Array.prototype.forEach.call(body.rows, function (row, i) { row.cells[0].textContent = String(i + 1); }); }
    function wire(row) { row.querySelector("button").addEventListener("click", function () { row.remove(); renumber(); }); }
    Array.prototype.forEach.call(body.rows, wire);
    $(cfg.add).addEventListener("click", function () {
      var row = template.content.firstElementChild.cloneNode(true); body.appendChild(row); wire(row); renumber();
      row.querySelector("input").focus();
    });
    window.collectBeneficiaries = function () {
      return Array.prototype.map.call(body.rows, function (row) {
        var inputs = row.querySelectorAll("input, select");
        return { name: inputs[0].value.trim(), relation: inputs[1].value, share: inputs[2].value.trim() };
      });
    };
  };
  FS.beneficiaryBridge = function (cfg) {
    var form = $(cfg.form), frame = $(cfg.frame), hidden = $(cfg.hidden);
    form.addEventListener("submit", function () {
      var win = frame.contentWindow;
      if (win && win.collectBeneficiaries) hidden.value = JSON.stringify(win.collectBeneficiaries());
    });
  };

  /* Search as you type: results appear after a short pause, or at once on the search button. */
  FS.liveSearch = function (cfg) {
    var input = $(cfg.input), results = $(cfg.results), form = $(cfg.form), timer = null, seq = 0;
    function run() {
      var mine = ++seq;
      fetch(cfg.url + "?q=" + encodeURIComponent(input.value.trim()), { credentials: "same-origin" })
        .then(function (r) { return r.text(); })
        .then(function (html) { if (mine === seq) { results.innerHTML = html; results.setAttribute("aria-busy", "false"); } });
    }
    input.addEventListener("input", function () {
      clearTimeout(timer); results.setAttribute("aria-busy", "true"); timer = setTimeout(run, 300);
    });
    form.addEventListener("submit", function (e) { e.preventDefault(); clearTimeout(timer); run(); });
  };

  /* The compliance report form lives in an open shadow root of a custom element. */
  function defineReportForm() {
    if (!window.customElements || customElements.get("compliance-report-form")) return;
    customElements.define("compliance-report-form", class extends HTMLElement {
      connectedCallback() {
        if (this.shadowRoot) return;
        var template = this.querySelector("template");
        this.attachShadow({ mode: "open" }).appendChild(template.content.cloneNode(true));
        var init = this.shadowRoot.querySelector("script[type='application/json']");
        if (init && FS.onReportForm) FS.onReportForm(this.shadowRoot, JSON.parse(init.textContent));
      }
    });
  }
  // Defined once the page is parsed, so the element's <template> child exists when it upgrades.
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", defineReportForm);
  else defineReportForm();

  window.FinSandbox = FS;
})();
