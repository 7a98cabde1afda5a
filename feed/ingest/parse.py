"""Parsing feed documents: bytes in, entries out; no network, no files, no ORM.

Well-formed RSS (0.9x, 1.0, 2.0) and Atom 1.0 are read by the lxml fast
path (`feed.ingest.fastparse`), which gives what feedparser would give,
forty times sooner. Everything else (Atom 0.3, broken XML, DTDs, arXiv's
own documents…) goes through feedparser, always handed a BytesIO of
the bytes our guarded fetcher read (given a string, feedparser would fetch a
URL or open a path itself). JSON Feed 1.0/1.1 is read here. arXiv (its Atom
API and its RSS listings) and GitHub's Atom feeds are feedparser's output
with a few rules of their own, in `feed.ingest.formats`.
"""

import calendar
import dataclasses
import datetime
import io
import json
import re
import time
from html import escape

import feedparser
from django.conf import settings

from aitop.days import utc_if_naive
from feed.ingest import formats, wording
from feed.ingest.fastparse import fast_parse
from feed.ingest.wording import recorded
from feed.ingest.xmlsafety import UnsafeXMLError, xml_check_safe

# feedparser asks xml.sax for Python 2's libxml2 driver first, which no Python 3
# has: a failed import, a search of every folder on sys.path, for each
# document (0.2 ms), before it takes expat, which it then uses. Ask for expat
# alone.
feedparser.api.PREFERRED_XML_PARSERS = []


class ParseError(ValueError):
    """The document is not a feed we can read; the message is for editors (feed.ingest.wording)."""


@dataclasses.dataclass
class RawEntry:
    """One entry as the feed gives it, before normalising."""

    guid: str = ""
    link: str = ""
    title: str = ""  # may hold markup and entities
    authors: list[str] = dataclasses.field(default_factory=list)
    published: datetime.datetime | None = None
    summary: str = ""  # HTML or text
    content: str = ""  # HTML
    base: str = ""  # what relative links in this entry are relative to
    tags: list[str] = dataclasses.field(default_factory=list)
    arxiv_id: str = ""
    # Set when the parser already knows the entry cannot be used, and why.
    unusable: str = ""


@dataclasses.dataclass
class ParsedFeed:
    """A whole document: its entries, its <ttl>, and what was wrong with it."""

    format: str
    title: str = ""
    entries: list[RawEntry] = dataclasses.field(default_factory=list)
    ttl_minutes: int | None = None
    warning: str = ""


def parse_feed(body: bytes, *, content_type: str = "", url: str = "") -> ParsedFeed:
    """Read a feed document of any supported format; ParseError if it is none."""
    if not body.strip():
        raise ParseError(recorded(wording.EMPTY))
    if _looks_like_json(body, content_type):
        return _parse_json(body, url=url)
    try:
        xml_check_safe(body)
    except UnsafeXMLError as error:
        raise ParseError(recorded(wording.REFUSED, reason=error)) from None
    _entries_bound(len(_XML_ENTRY.findall(body)))
    return _parse_xml(body, content_type=content_type, url=url)


# An RSS item or an Atom entry, namespaced or not: counted on the bytes (a
# regular expression runs through 10 MB in milliseconds), before any parser.
_XML_ENTRY = re.compile(rb"<(?:[\w.-]+:)?(?:item|entry)[\s/>]")


def _entries_bound(count: int) -> None:
    """Refuse a document with more entries than anyone's feed has (parsing them all costs)."""
    limit = settings.FETCH_MAX_DOCUMENT_ENTRIES
    if count > limit:
        raise ParseError(recorded(wording.TOO_MANY_ENTRIES, count=f"{count:,}", limit=f"{limit:,}"))


def _looks_like_json(body: bytes, content_type: str) -> bool:
    start = body.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    return start in (b"{", b"[") or ("json" in content_type.lower() and start != b"<")


def _parse_xml(body: bytes, *, content_type: str, url: str) -> ParsedFeed:
    # The content type helps feedparser find the encoding. The feed's URL is
    # not given: relative links are resolved later, in normalising, against
    # the URL the feed came from; given here, feedparser would resolve a base
    # URI at every element, a third of its parsing time. Sanitising HTML is
    # left to nh3, once, for the same reason.
    fast = fast_parse(body)
    if fast is not None:
        version, title, entries, ttl = fast
        parsed = ParsedFeed(format=version, title=title, ttl_minutes=_ttl(ttl))
        for entry in entries:
            raw = _raw_from_feedparser(entry, base=url)
            formats.adapt_entry(raw, entry)
            parsed.entries.append(raw)
        return parsed
    headers = {"content-type": content_type} if content_type else {}
    result = feedparser.parse(
        io.BytesIO(body),
        response_headers=headers,
        sanitize_html=False,
        resolve_relative_uris=False,
    )
    warning = ""
    if result.get("bozo"):
        problem = result.get("bozo_exception")
        if not result.entries and not result.get("version"):
            raise ParseError(recorded(wording.NOT_A_FEED, detail=_describe(problem)))
        warning = recorded(wording.NOT_WELL_FORMED, detail=_describe(problem))
    elif not result.get("version") and not result.entries:
        raise ParseError(recorded(wording.NO_FEED_FOUND))
    feed = result.get("feed", {})
    parsed = ParsedFeed(
        format=result.get("version") or "unknown",
        title=feed.get("title", ""),
        ttl_minutes=_ttl(feed.get("ttl")),
        warning=warning,
    )
    for entry in result.entries:
        if not entry:
            # An element with nothing at all in it: feedparser's trace of an
            # empty <item/> nested inside another item, not an entry of the feed.
            continue
        raw = _raw_from_feedparser(entry, base=url)
        formats.adapt_entry(raw, entry)
        parsed.entries.append(raw)
    return parsed


def _describe(problem) -> str:
    text = str(problem or "").strip() or type(problem).__name__
    return text[:300]


def _ttl(value) -> int | None:
    try:
        minutes = int(str(value).strip())
    except (TypeError, ValueError):
        return None
    return minutes if minutes > 0 else None


def _struct_to_datetime(value) -> datetime.datetime | None:
    if not isinstance(value, time.struct_time):
        return None
    try:
        return datetime.datetime.fromtimestamp(calendar.timegm(value), tz=datetime.UTC)
    except (OverflowError, ValueError, OSError):
        return None


def _raw_from_feedparser(entry, *, base: str) -> RawEntry:
    content = ""
    content_base = ""
    for part in entry.get("content", []) or []:
        if part.get("value"):
            content = part["value"]
            content_base = part.get("base", "")
            if "html" in part.get("type", ""):
                break
    summary = entry.get("summary", "")
    if summary == content:
        summary = ""
    authors = [a.get("name", "") for a in entry.get("authors", []) or [] if a.get("name")]
    if not authors and entry.get("author"):
        authors = [entry["author"]]
    return RawEntry(
        guid=str(entry.get("id", "") or ""),
        link=entry.get("link", "") or "",
        title=entry.get("title", "") or "",
        authors=authors,
        published=_struct_to_datetime(entry.get("published_parsed"))
        or _struct_to_datetime(dict.get(entry, "updated_parsed")),
        summary=summary,
        content=content,
        base=content_base or base,
    )


def _parse_json(body: bytes, *, url: str) -> ParsedFeed:
    warning = ""
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = body.decode("utf-8-sig", "replace")
        warning = recorded(wording.JSON_NOT_UTF8)
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise ParseError(recorded(wording.NOT_JSON_FEED, detail=error)) from None
    if not isinstance(data, dict) or not isinstance(data.get("items"), list):
        raise ParseError(recorded(wording.JSON_NO_ITEMS))
    _entries_bound(len(data["items"]))
    version = data.get("version")
    if not (isinstance(version, str) and version.startswith("https://jsonfeed.org/version/")):
        warning = warning or recorded(wording.JSON_NO_VERSION)
    parsed = ParsedFeed(
        format="json" + (version.rsplit("/", 1)[-1].replace(".", "") if version else ""),
        title=_str(data.get("title")),
        warning=warning,
    )
    base = _str(data.get("feed_url")) or url
    feed_authors = _json_authors(data)
    for item in data["items"]:
        parsed.entries.append(_raw_from_json(item, base=url or base, feed_authors=feed_authors))
    return parsed


def _str(value) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return ""


def _json_authors(obj: dict) -> list[str]:
    # 1.1 has "authors" (a list); 1.0 had one "author".
    authors = obj.get("authors")
    if not isinstance(authors, list):
        authors = [obj.get("author")] if obj.get("author") else []
    return [_str(a.get("name")) for a in authors if isinstance(a, dict) and _str(a.get("name"))]


def _json_date(value) -> datetime.datetime | None:
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        parsed = datetime.datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    return utc_if_naive(parsed)


def _raw_from_json(item, *, base: str, feed_authors: list[str]) -> RawEntry:
    if not isinstance(item, dict):
        return RawEntry(unusable=recorded(wording.SKIP_NOT_OBJECT))
    guid = _str(item.get("id"))
    link = _str(item.get("url")) or _str(item.get("external_url"))
    if not link and guid.startswith(("http://", "https://")):
        link = guid
    content = _str(item.get("content_html"))
    text = _str(item.get("content_text"))
    summary = _str(item.get("summary")) or (text if content else "")
    raw = RawEntry(
        guid=guid,
        link=link,
        title=_str(item.get("title")),
        authors=_json_authors(item) or feed_authors,
        published=_json_date(item.get("date_published")) or _json_date(item.get("date_modified")),
        summary=summary,
        # Plain text is escaped so that it stays text when it becomes the body.
        content=content or _escape_text(text),
        base=base,
    )
    formats.adapt_json_entry(raw)
    return raw


def _escape_text(text: str) -> str:
    return "".join(f"<p>{escape(p)}</p>" for p in text.split("\n\n") if p.strip())
