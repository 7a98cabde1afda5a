"""Fetching a feed: one guarded GET with every limit a hostile server could test.

Redirects are followed here, by hand, so that each hop's scheme is checked
and counted (the network guard checks each hop's address as it connects);
the body is decompressed here too, by us, so the size limit applies to the
decompressed bytes and a gzip bomb is stopped after at most the limit.
"""

import dataclasses
import time
import zlib
from urllib.parse import urljoin, urlsplit

import httpx
from django.conf import settings

from aitop import netguard
from aitop.netguard import BlockedAddressError, Deadline, guarded_client
from feed.ingest import wording
from feed.ingest.wording import recorded

ACCEPT = (
    "application/rss+xml, application/atom+xml, application/feed+json, "
    "application/json;q=0.9, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5"
)
_GZIP_MAGIC = b"\x1f\x8b"


class FetchError(Exception):
    """A fetch that brought no usable body; the message is for editors (feed.ingest.wording)."""

    def __init__(self, message: str, *, http_status: int | None = None, headers=None):
        super().__init__(message)
        self.message = message
        self.http_status = http_status
        self.headers = httpx.Headers(headers or {})


@dataclasses.dataclass(frozen=True)
class FetchedFeed:
    """What the server sent: the (decompressed) body, or "not modified"."""

    status_code: int
    body: bytes
    headers: httpx.Headers
    final_url: str
    not_modified: bool = False

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "")


def url_scheme_refusal(url: str) -> str | None:
    """Why a URL cannot be fetched at all (not http/https, no host), in the fetch log's words."""
    refusal = netguard.url_refusal(url)
    if refusal == netguard.URL_UNREADABLE:
        return recorded(wording.URL_UNREADABLE)
    if refusal == netguard.URL_SCHEME:
        scheme = urlsplit(url).scheme
        if not scheme:
            return recorded(wording.URL_RELATIVE)
        return recorded(wording.URL_SCHEME, scheme=scheme)
    if refusal == netguard.URL_NO_HOST:
        return recorded(wording.URL_NO_HOST)
    return None


def fetch_feed(url: str, *, etag: str = "", last_modified: str = "") -> FetchedFeed:
    """GET `url` through the network guard, with the conditional headers given."""
    headers = {
        "User-Agent": settings.FETCH_USER_AGENT,
        "Accept": ACCEPT,
        # Only what we decompress ourselves, under the size limit.
        "Accept-Encoding": "gzip, deflate",
    }
    if etag:
        headers["If-None-Match"] = etag
    if last_modified:
        headers["If-Modified-Since"] = last_modified
    timeout = httpx.Timeout(
        connect=settings.FETCH_CONNECT_TIMEOUT,
        read=settings.FETCH_READ_TIMEOUT,
        write=settings.FETCH_READ_TIMEOUT,
        pool=settings.FETCH_CONNECT_TIMEOUT,
    )
    deadline = time.monotonic() + settings.FETCH_TOTAL_TIMEOUT
    # The watchdog ends a fetch at the total deadline wherever it waits (headers
    # dripped a line a second included); the checks below end it between reads.
    watchdog = Deadline(settings.FETCH_TOTAL_TIMEOUT)
    try:
        with watchdog, guarded_client(timeout=timeout, follow_redirects=False) as client:
            return _follow(client, url, headers=headers, deadline=deadline, trace=watchdog.trace)
    except BlockedAddressError as error:
        # Says which setting lets a desk fetch from its own network, never the address.
        raise FetchError(recorded(wording.PRIVATE_HOST, refusal=error)) from None
    except httpx.TimeoutException:
        raise FetchError(_timeout_message()) from None
    except httpx.HTTPError as error:
        if watchdog.expired:
            raise FetchError(_timeout_message()) from None
        raise FetchError(_network_message(error)) from None


def _follow(
    client: httpx.Client, url: str, *, headers: dict, deadline: float, trace
) -> FetchedFeed:
    seen = [url]
    for _hop in range(settings.FETCH_MAX_REDIRECTS + 1):
        refusal = url_scheme_refusal(url)
        if refusal:
            raise FetchError(refusal)
        if time.monotonic() > deadline:
            raise FetchError(_timeout_message())
        with client.stream("GET", url, headers=headers, extensions={"trace": trace}) as response:
            location = response.headers.get("location")
            if response.is_redirect and location:
                url = urljoin(url, location.strip())
                if url in seen:
                    raise FetchError(recorded(wording.REDIRECT_LOOP, url=url))
                seen.append(url)
                continue
            if response.status_code == 304:
                return FetchedFeed(304, b"", response.headers, url, not_modified=True)
            if response.status_code >= 400:
                reason = response.reason_phrase.strip()
                raise FetchError(
                    recorded(
                        wording.HTTP_STATUS_REASON if reason else wording.HTTP_STATUS,
                        status=response.status_code,
                        reason=reason,
                    ),
                    http_status=response.status_code,
                    headers=response.headers,
                )
            body = _read_limited(response, deadline=deadline)
            return FetchedFeed(response.status_code, body, response.headers, url)
    raise FetchError(recorded(wording.REDIRECTS, count=settings.FETCH_MAX_REDIRECTS))


def _read_limited(response: httpx.Response, *, deadline: float) -> bytes:
    """The body, decompressed, refused past the size limit or the total time."""
    limit = settings.FETCH_MAX_BYTES
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise FetchError(_too_large_message(limit))
    decoder = _Decoder(response.headers.get("content-encoding", ""), limit=limit)
    # No chunk size: each network read is handed over as it comes, so the
    # total deadline is checked after every one of them.
    for chunk in response.iter_raw():
        decoder.feed(chunk)
        if time.monotonic() > deadline:
            raise FetchError(_timeout_message())
    if time.monotonic() > deadline:
        # The watchdog shut the socket: what looks like the end is a cut-off body.
        raise FetchError(_timeout_message())
    body = decoder.finish()
    # A .gz file served as it is: still a feed, and still under the limit.
    if body[:2] == _GZIP_MAGIC:
        bare = _Decoder("gzip", limit=limit)
        bare.feed(body)
        body = bare.finish()
    return body


class _Decoder:
    """gzip/deflate/identity decoding that never holds more than `limit` bytes out."""

    def __init__(self, content_encoding: str, *, limit: int):
        self.limit = limit
        self.parts: list[bytes] = []
        self.size = 0
        codings = [c.strip().lower() for c in content_encoding.split(",") if c.strip()]
        codings = [c for c in codings if c != "identity"]
        if len(codings) > 1 or (codings and codings[0] not in {"gzip", "x-gzip", "deflate"}):
            raise FetchError(recorded(wording.COMPRESSION, codings=codings))
        self.coding = codings[0] if codings else ""
        self.zlib = self._new_zlib() if self.coding else None
        self.raw_deflate_tried = False

    def _new_zlib(self, raw: bool = False):
        if raw:
            return zlib.decompressobj(-zlib.MAX_WBITS)
        # 32 + MAX_WBITS: accept a gzip or a zlib header, whichever comes.
        return zlib.decompressobj(32 + zlib.MAX_WBITS)

    def _keep(self, data: bytes) -> None:
        self.size += len(data)
        if self.size > self.limit:
            raise FetchError(_too_large_message(self.limit))
        self.parts.append(data)

    def feed(self, chunk: bytes) -> None:
        if self.zlib is None:
            self._keep(chunk)
            return
        data = chunk
        while data:
            try:
                # Never more than one byte past what the limit allows per call.
                out = self.zlib.decompress(data, self.limit - self.size + 1)
            except zlib.error:
                if self.coding == "deflate" and not self.raw_deflate_tried and not self.size:
                    # Some servers send "deflate" without the zlib header.
                    self.raw_deflate_tried = True
                    self.zlib = self._new_zlib(raw=True)
                    continue
                raise FetchError(recorded(wording.CORRUPT)) from None
            self._keep(out)
            data = self.zlib.unconsumed_tail
            if self.zlib.eof:
                data = self.zlib.unused_data
                if data.strip(b"\0"):
                    # Another gzip member follows.
                    self.zlib = self._new_zlib()
                else:
                    break

    def finish(self) -> bytes:
        if self.zlib is not None and not self.zlib.eof:
            self._keep(self.zlib.flush())
        return b"".join(self.parts)


def _too_large_message(limit: int) -> str:
    return recorded(wording.TOO_LARGE, size=f"{limit / 1024 / 1024:g}")


def _timeout_message() -> str:
    return recorded(
        wording.TOO_SLOW,
        connect=f"{settings.FETCH_CONNECT_TIMEOUT:g}",
        read=f"{settings.FETCH_READ_TIMEOUT:g}",
        total=f"{settings.FETCH_TOTAL_TIMEOUT:g}",
    )


def _network_message(error: httpx.HTTPError) -> str:
    text = str(error) or type(error).__name__
    if "CERTIFICATE_VERIFY_FAILED" in text or "certificate" in text.lower():
        return recorded(wording.TLS, detail=text)
    return recorded(wording.NETWORK, detail=text)
