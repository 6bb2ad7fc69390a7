#!/usr/bin/env bash
# Installs everything FinRPA needs on a fresh machine: virtualenv, locked packages, Chromium, a CJK font and
# the web UI build. Safe to run again: each step skips what is already in place.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3

if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$PYTHON" -m venv .venv
fi
if [ ! -f .venv/.deps-installed ] || [ requirements.lock -nt .venv/.deps-installed ] || [ pyproject.toml -nt .venv/.deps-installed ]; then
  echo "setup: installing locked packages"
  .venv/bin/python -m pip install --quiet --upgrade pip uv
  .venv/bin/uv pip install --quiet --python .venv/bin/python -r requirements.lock
  .venv/bin/uv pip install --quiet --python .venv/bin/python --no-deps -e .
  touch .venv/.deps-installed
fi

have_chromium() {
  .venv/bin/python -c "from finrpa.browser.locate import locate_chromium; import sys; sys.exit(0 if locate_chromium() else 1)"
}
if ! have_chromium; then
  echo "setup: installing Playwright's Chromium"
  .venv/bin/playwright install chromium >/dev/null 2>&1 || true
fi
if ! have_chromium; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: Playwright's download is unavailable; installing the system's chromium"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "setup: Chromium not found. Install it (Debian: apt-get install chromium) or set FINRPA_CHROMIUM_PATH." >&2
    exit 1
  fi
fi
if ! fc-list 2>/dev/null | grep -qiE "wqy|noto sans cjk|noto serif cjk"; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing a CJK font so Chinese text renders in screenshots"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-wqy-microhei >/dev/null
  else
    echo "setup: warning: no CJK font; Chinese text in screenshots will render as boxes (install fonts-wqy-microhei)" >&2
  fi
fi

if [ -f web/package.json ]; then
  if [ ! -d web/node_modules ] || [ web/package-lock.json -nt web/node_modules ]; then
    echo "setup: installing web UI packages"
    (cd web && npm ci --no-audit --no-fund --loglevel=error)
  fi
  if [ ! -f web/dist/index.html ] || [ -n "$(find web/src web/index.html -newer web/dist/index.html 2>/dev/null | head -n 1)" ]; then
    echo "setup: building the web UI"
    (cd web && npm run build --silent)
  fi
fi
echo "setup: done"
