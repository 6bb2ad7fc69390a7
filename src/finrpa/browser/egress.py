"""Per-run egress allowlist, enforced at the browser context's network layer.

The allowlist is derived from the portal URLs a run may use plus explicit extras. Entries are host names
(``bank.example.com``), host:port pairs (``127.0.0.1:8600``) or wildcards (``*.example.com``). Loopback is
not allowed unless listed. Non-network schemes (data:, blob:, about:) never leave the browser and pass.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from finrpa.browser.errors import InvalidActionError

_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
_LOCAL_SCHEMES = frozenset({"data", "blob", "about", "chrome-error", "javascript"})


@dataclass(frozen=True)
class AllowEntry:
    host: str
    port: int | None = None  # None: any port
    wildcard: bool = False  # host is a suffix ("example.com" matches "a.example.com")

    def allows(self, host: str, port: int | None) -> bool:
        if self.port is not None and port != self.port:
            return False
        if self.wildcard:
            return host.endswith("." + self.host)
        return host == self.host


def _parse_entry(text: str) -> AllowEntry:
    raw = text.strip().lower()
    if "://" in raw:
        parts = urlsplit(raw)
        if not parts.hostname:
            raise InvalidActionError(f"Allowlist entry {text!r} has no host; give a URL or a host name.")
        return AllowEntry(parts.hostname, parts.port)
    if raw.startswith("["):  # an IPv6 address, with or without a port: [::1] or [::1]:8600
        bracketed, _, port = raw[1:].partition("]")
        if port and not (port.startswith(":") and port[1:].isdigit()):
            raise InvalidActionError(f"Allowlist entry {text!r} is not [IPv6] or [IPv6]:port.")
        return AllowEntry(bracketed, int(port[1:]) if port else None)
    wildcard = raw.startswith("*.")
    raw = raw.removeprefix("*.")
    host, _, port = raw.rpartition(":") if raw.count(":") == 1 else (raw, "", "")
    if not host or (port and not port.isdigit()):
        raise InvalidActionError(f"Allowlist entry {text!r} is not a host, host:port or *.domain.")
    return AllowEntry(host, int(port) if port else None, wildcard)


class EgressAllowlist:
    """Which hosts a run's browser may reach."""

    def __init__(self, entries: Iterable[AllowEntry]) -> None:
        self.entries = tuple(entries)

    @classmethod
    def build(cls, portal_urls: Iterable[str], extra_hosts: Iterable[str] = ()) -> EgressAllowlist:
        """Portal URLs allow their host on any port; extras may pin a port or use ``*.domain``."""
        entries = [AllowEntry(e.host) for e in map(_parse_entry, portal_urls)]
        entries += [_parse_entry(h) for h in extra_hosts]
        return cls(entries)

    def allows_url(self, url: str) -> bool:
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme in _LOCAL_SCHEMES:
            return True
        host = (parts.hostname or "").lower()
        if not host:
            return False
        try:
            port = parts.port or _DEFAULT_PORTS.get(scheme)
        except ValueError:
            return False
        return any(entry.allows(host, port) for entry in self.entries)

    def proxy_bypass(self) -> str:
        """The allowlist as Chromium's proxy bypass list: these hosts connect directly, every other request of
        the context goes to the run's refusing proxy (:mod:`finrpa.browser.egress_proxy`). It starts with
        ``<-loopback>``: Chromium would otherwise let every loopback address bypass the proxy, and the driver adds
        that rule itself only when no entry is a bare loopback host."""
        rules = ["<-loopback>"]
        for entry in self.entries:
            host = f"[{entry.host}]" if ":" in entry.host else entry.host
            rule = f"*.{host}" if entry.wildcard else host
            rules.append(f"{rule}:{entry.port}" if entry.port is not None else rule)
        return ",".join(rules)

    def hosts(self) -> list[str]:
        return [("*." if e.wildcard else "") + e.host + (f":{e.port}" if e.port else "") for e in self.entries]
