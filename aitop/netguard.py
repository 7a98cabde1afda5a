"""Outbound HTTP that cannot be turned against our own network.

Every request to a URL that someone else chose (a feed, a webhook) goes
through `guarded_client()`. The guard sits where the socket is opened: the
host is resolved once, every address it resolves to is checked, and the
connection is made to an address that passed. So `http://2130706433/`,
`http://127.1/` and `http://[::ffff:127.0.0.1]/` are caught (the check is on
the address dialled, not on the spelling of the URL), there is no window for
DNS rebinding between check and connect, and redirects are checked at every
hop because each hop opens its own connection. TLS still verifies the
certificate against the host name of the URL: only the TCP connection is
pinned to the checked address.

Interface:

- `guarded_client(timeout=..., allow_hosts=None, **kwargs) -> httpx.Client`:
  a client whose every connection is guarded (env proxies off).
- `address_refusal(ip) -> str | None`: why an address may not be dialled.
- `resolve_checked(host, port, allow_hosts=...) -> list[str]`: the addresses
  to dial, or `BlockedAddressError`.
- `BlockedAddressError` (an `httpx.TransportError`): raised by the client
  when the guard refuses; its message says which address and why.
"""

import contextlib
import heapq
import ipaddress
import itertools
import os
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterable
from urllib.parse import urlsplit

import certifi
import httpcore
import httpx
from django.conf import settings
from django.utils.translation import gettext_noop

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Prefixes that carry an IPv4 address inside an IPv6 one (NAT64); the IPv4
# address is what the gateway will dial, so it is checked too.
_NAT64_PREFIXES = (
    ipaddress.ip_network("64:ff9b::/96"),
    ipaddress.ip_network("64:ff9b:1::/48"),
)


class BlockedAddressError(httpx.TransportError):
    """The guard refused to connect: the host resolves to an address we never dial."""


# The guard's answers, in English: a fetch records them as they are and the
# admin translates them when it shows them (feed.ingest.wording).
REFUSED_ADDRESS = gettext_noop("refused to connect to %(host)s: not a public address")
UNRESOLVED = gettext_noop("cannot resolve %(host)s: %(detail)s")
NO_ADDRESS = gettext_noop("%(host)s has no address")
UNREACHABLE = gettext_noop("cannot connect to %(host)s")


#: What `url_refusal` may answer; each caller words it for its own readers.
URL_UNREADABLE, URL_SCHEME, URL_NO_HOST = "unreadable", "scheme", "no host"


def url_refusal(url: str) -> str | None:
    """Why the guard would never dial `url` (one of `URL_*`); None for an http(s) URL with a host.

    The one check of scheme and host for every outgoing request: feeds, OPML
    imports and webhooks. Addresses are checked when the guard connects.
    """
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return URL_UNREADABLE
    if parts.scheme not in {"http", "https"}:
        return URL_SCHEME
    if not host:
        return URL_NO_HOST
    return None


def address_refusal(ip: IPAddress) -> str | None:
    """Why `ip` may not be dialled (loopback, private, …), or None if it is public."""
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(ip)
        if embedded is not None:
            reason = address_refusal(embedded)
            if reason:
                return f"{reason} (inside {ip})"
    checks = (
        ("unspecified", ip.is_unspecified),
        ("loopback", ip.is_loopback),
        ("link-local", ip.is_link_local),
        ("multicast", ip.is_multicast),
        ("reserved", ip.is_reserved),
        ("private", ip.is_private),
        ("not globally reachable", not ip.is_global),
    )
    for reason, applies in checks:
        if applies:
            return reason
    return None


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    if any(ip in prefix for prefix in _NAT64_PREFIXES):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def _host_key(host: str) -> str:
    return host.strip().strip("[]").rstrip(".").lower()


def _allowed(host: str, ip: IPAddress, allow_hosts: Iterable[str]) -> bool:
    """True when the URL's host name, or the address dialled, is on the allow-list.

    An entry is a host name, an address, or a network (`127.0.0.0/8`,
    `fd00::/8`) that holds the address dialled.
    """
    candidates = {ip}
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        candidates.add(ip.ipv4_mapped)
    for entry in allow_hosts:
        key = _host_key(entry)
        if key == _host_key(host):
            return True
        try:
            allowed = ipaddress.ip_network(key, strict=False)
        except ValueError:
            continue
        if any(candidate in allowed for candidate in candidates):
            return True
    return False


def resolve_checked(host: str, port: int, *, allow_hosts: Iterable[str] = ()) -> list[str]:
    """Resolve `host` and return the addresses to dial; refuse if any of them is not public.

    A host with one public and one private address is refused as a whole: the
    name could answer either way next time.
    """
    allow_hosts = list(allow_hosts)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as error:
        raise httpx.ConnectError(UNRESOLVED % {"host": host, "detail": error}) from None
    addresses: list[str] = []
    for *_, sockaddr in infos:
        address = sockaddr[0]
        ip = ipaddress.ip_address(address.split("%", 1)[0])
        if not _allowed(host, ip, allow_hosts) and address_refusal(ip):
            # Never which address, nor what kind: an editor testing a feed
            # must not learn how internal names resolve.
            raise BlockedAddressError(REFUSED_ADDRESS % {"host": host})
        if address not in addresses:
            addresses.append(address)
    if not addresses:
        raise httpx.ConnectError(NO_ADDRESS % {"host": host})
    return addresses


class GuardedNetworkBackend(httpcore.SyncBackend):
    """httpcore's socket backend, dialling only addresses that `resolve_checked` passed."""

    def __init__(self, *, allow_hosts: Iterable[str] = ()):
        self.allow_hosts = tuple(allow_hosts)

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        last_error: Exception | None = None
        for address in resolve_checked(host, port, allow_hosts=self.allow_hosts):
            try:
                # A literal address: create_connection makes no DNS query of its own.
                return super().connect_tcp(address, port, timeout, local_address, socket_options)
            except httpcore.ConnectError as error:
                last_error = error
        raise last_error or httpcore.ConnectError(UNREACHABLE % {"host": host})


class GuardedTransport(httpx.HTTPTransport):
    """httpx's transport with the guarded backend and no proxy."""

    def __init__(self, *, ssl_context: ssl.SSLContext, allow_hosts: Iterable[str] = ()):
        limits = httpx.Limits(max_connections=10, max_keepalive_connections=5)
        super().__init__(verify=ssl_context, trust_env=False, limits=limits)
        # HTTPTransport offers no way to pass a network backend, so its pool is
        # replaced by an identical one that uses ours (same SSL context, limits).
        self._pool = httpcore.ConnectionPool(
            ssl_context=ssl_context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=GuardedNetworkBackend(allow_hosts=allow_hosts),
        )


# Loading a CA bundle costs about 16 ms of CPU, three times a whole HTTPS fetch
# of a feed: each context is built once per process and shared by every client
# (an SSLContext is safe to use from many threads at once).
_ssl_contexts: dict[str, ssl.SSLContext] = {}
_ssl_contexts_lock = threading.Lock()


def ssl_context_once(key: str, build: Callable[[], ssl.SSLContext]) -> ssl.SSLContext:
    """The context `build()` made the first time `key` was asked for in this process."""
    context = _ssl_contexts.get(key)
    if context is None:
        # Worker threads fetch at once: without the lock each would load the bundle.
        with _ssl_contexts_lock:
            context = _ssl_contexts.get(key)
            if context is None:
                context = _ssl_contexts[key] = build()
    return context


def verifying_ssl_context(ca_bundle: str = "") -> ssl.SSLContext:
    """A TLS context that verifies certificates and host names (built once per bundle)."""
    cafile = ca_bundle or certifi.where()
    return ssl_context_once(f"cafile:{cafile}", lambda: ssl.create_default_context(cafile=cafile))


def guarded_client(
    *,
    timeout: httpx.Timeout | float,
    allow_hosts: Iterable[str] | None = None,
    ca_bundle: str | None = None,
    **kwargs,
) -> httpx.Client:
    """An httpx client that refuses non-public addresses and follows no env proxy.

    `allow_hosts` defaults to settings.FETCH_ALLOW_HOSTS and `ca_bundle` to
    settings.FETCH_CA_BUNDLE (empty: certifi's bundle). Certificates are
    always verified; there is no insecure mode to fall back to.
    """
    if allow_hosts is None:
        allow_hosts = settings.FETCH_ALLOW_HOSTS
    if ca_bundle is None:
        ca_bundle = settings.FETCH_CA_BUNDLE
    transport = GuardedTransport(
        ssl_context=verifying_ssl_context(ca_bundle), allow_hosts=allow_hosts
    )
    return httpx.Client(transport=transport, timeout=timeout, trust_env=False, **kwargs)


class Deadline:
    """One wall-clock limit for a whole exchange: connecting, sending, the headers and the body.

    Used by every outgoing request that must end on time (fetches, webhook tries):
    pass `extensions={"trace": deadline.trace}` to each request made under it.

    httpx's timeouts count each read on its own, so a receiver that drips a
    header line every second never trips them; when this deadline passes, the
    process's watchdog shuts the try's sockets down, which ends any read that
    is waiting.
    """

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.expired = False
        self.due = 0.0
        self.sockets: list[socket.socket] = []
        self.lock = threading.Lock()

    def trace(self, event: str, info: dict) -> None:
        """httpcore's trace hook: note each socket the try opens."""
        if event in {"connection.connect_tcp.complete", "connection.start_tls.complete"}:
            sock = info["return_value"].get_extra_info("socket")
            with self.lock:
                if sock is not None:
                    self.sockets.append(sock)
                expired = self.expired
            if expired:
                self.cut()

    def cut(self) -> None:
        with self.lock:
            self.expired = True
            sockets = list(self.sockets)
        for sock in sockets:
            with contextlib.suppress(OSError):  # already closed
                sock.shutdown(socket.SHUT_RDWR)

    def __enter__(self) -> "Deadline":
        self.due = time.monotonic() + self.seconds
        _watchdog.watch(self)
        return self

    def __exit__(self, *exc_info) -> None:
        _watchdog.forget(self)


class _Watchdog:
    """One daemon thread per process that cuts each Deadline when it passes.

    A thread per deadline (threading.Timer) cost a thread's start and end on
    every fetch; here the deadlines in flight wait in a heap, earliest first.
    """

    def __init__(self):
        self.wake = threading.Condition(threading.Lock())
        self.heap: list[tuple[float, int, Deadline]] = []
        self.order = itertools.count()  # ties never compare Deadlines
        self.thread: threading.Thread | None = None

    def watch(self, deadline: Deadline) -> None:
        with self.wake:
            if self.thread is None:
                self.thread = threading.Thread(
                    target=self._run, name="aitop-deadline-watchdog", daemon=True
                )
                self.thread.start()
            heapq.heappush(self.heap, (deadline.due, next(self.order), deadline))
            if self.heap[0][2] is deadline:
                self.wake.notify()  # earlier than what the thread waits for

    def forget(self, deadline: Deadline) -> None:
        with self.wake:
            # The heap holds only the exchanges in flight (a worker's
            # concurrency): a scan is cheaper than keeping finished ones.
            for index, entry in enumerate(self.heap):
                if entry[2] is deadline:
                    self.heap[index] = self.heap[-1]
                    self.heap.pop()
                    heapq.heapify(self.heap)
                    break

    def _next_due(self) -> Deadline:
        with self.wake:
            while True:
                if not self.heap:
                    self.wake.wait()
                    continue
                wait = self.heap[0][0] - time.monotonic()
                if wait <= 0:
                    return heapq.heappop(self.heap)[2]
                self.wake.wait(wait)

    def _run(self) -> None:
        while True:
            deadline = self._next_due()
            # Outside the heap's lock: shutting sockets down may take a moment.
            deadline.cut()

    def _after_fork(self) -> None:
        # A forked child has none of its parent's threads: it starts its own.
        self.__init__()


_watchdog = _Watchdog()
os.register_at_fork(after_in_child=_watchdog._after_fork)
