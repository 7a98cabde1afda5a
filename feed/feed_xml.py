"""RSS 2.0 and Atom 1.0 written as strings, with the bytes Django's feedgenerator writes.

Django's syndication `Feed` asks each entry for fifteen attributes through
`_get_dynamic_attr` and its generator writes every element through SAX
calls: at a million items that was about a fifth of a cold feed.xml's
instructions. The elements a feed of ours holds are few and always the
same, so they are joined here. `tests/feed/test_feed_xml.py` holds the
bytes to Django's generator for the same values, and the stream's and the
daily brief's answers to what their `Feed` classes wrote.

One difference: a character XML 1.0 cannot carry (a control character an
editor pasted) is left out, where Django's generator raises and the feed
answers 500.
"""

import datetime
import email.utils
import re
from dataclasses import dataclass

from django.http import HttpRequest, HttpResponse
from django.utils.encoding import iri_to_uri
from django.utils.http import http_date

RSS_CONTENT_TYPE = "application/rss+xml; charset=utf-8"
ATOM_CONTENT_TYPE = "application/atom+xml; charset=utf-8"

_XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>\n'
# What `iri_to_uri` writes unchanged: its safe characters and quote()'s own.
_URI_AS_IS = re.compile(r"[A-Za-z0-9_.~/#%\[\]=:;$&()+,!?*@'-]*")
_DUBLIN_CORE = ' xmlns:dc="http://purl.org/dc/elements/1.1/"'
_UNWRITABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")


@dataclass(frozen=True)
class Channel:
    """The feed itself; `link` and `feed_url` as `AbsoluteURLs` writes them."""

    title: str
    link: str
    description: str
    feed_url: str
    language: str


@dataclass(frozen=True)
class Entry:
    """One item of a feed; `link` as `AbsoluteURLs` writes it, `description` HTML, dates aware."""

    title: str
    link: str
    description: str
    author: str
    published: datetime.datetime
    updated: datetime.datetime | None
    categories: list[str]


class AbsoluteURLs:
    """Paths made full URLs as Django's `Feed` makes them (`add_domain`, then `iri_to_uri`).

    The scheme and host are read once a feed: `get_host()` validates the
    host each time it is asked, and a feed has fifty entries.
    """

    def __init__(self, request: HttpRequest):
        self.scheme = request.scheme
        self.root = f"{request.scheme}://{request.get_host()}"

    def __call__(self, url: str) -> str:
        if url.startswith("//"):
            url = f"{self.scheme}:{url}"
        elif not url.startswith(("http://", "https://", "mailto:")):
            url = self.root + url
        # Most are ASCII that `iri_to_uri` leaves as it is: skip its quoting.
        return url if _URI_AS_IS.fullmatch(url) else iri_to_uri(url)


def rss_response(channel: Channel, entries: list[Entry]) -> HttpResponse:
    latest = _latest(entries)
    head = [
        _XML_DECLARATION,
        '<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel>',
        _element("title", channel.title),
        _element("link", channel.link),
        _element("description", channel.description),
        f'<atom:link href={_attribute(channel.feed_url)} rel="self"/>',
        _element("language", channel.language),
        _element("lastBuildDate", email.utils.format_datetime(latest)),
    ]
    body = [_rss_item(entry) for entry in entries]
    return _response(RSS_CONTENT_TYPE, latest, [*head, *body, "</channel></rss>"])


def atom_response(channel: Channel, entries: list[Entry]) -> HttpResponse:
    latest = _latest(entries)
    link = channel.link
    head = [
        _XML_DECLARATION,
        f'<feed xml:lang={_attribute(channel.language)} xmlns="http://www.w3.org/2005/Atom">',
        _element("title", channel.title),
        f'<link href={_attribute(link)} rel="alternate"/>',
        f'<link href={_attribute(channel.feed_url)} rel="self"/>',
        _element("id", link),
        _element("updated", latest.isoformat()),
        _element("subtitle", channel.description),
    ]
    body = [_atom_entry(entry) for entry in entries]
    return _response(ATOM_CONTENT_TYPE, latest, [*head, *body, "</feed>"])


def _rss_item(entry: Entry) -> str:
    link = entry.link
    parts = [
        "<item>",
        _element("title", entry.title),
        _element("link", link),
        _element("description", entry.description),
    ]
    if entry.author:
        parts.append(_element("dc:creator", entry.author, _DUBLIN_CORE))
    parts.append(_element("pubDate", email.utils.format_datetime(entry.published)))
    parts.append(_element("guid", link))
    parts += [_element("category", category) for category in entry.categories]
    parts.append("</item>")
    return "".join(parts)


def _atom_entry(entry: Entry) -> str:
    link = entry.link
    parts = [
        "<entry>",
        _element("title", entry.title),
        f'<link href={_attribute(link)} rel="alternate"/>',
        _element("published", entry.published.isoformat()),
    ]
    if entry.updated is not None:
        parts.append(_element("updated", entry.updated.isoformat()))
    parts += [
        "<author>",
        _element("name", entry.author),
        "</author>",
        _element("id", link),
        _element("summary", entry.description, ' type="html"'),
    ]
    parts += [f"<category term={_attribute(category)}/>" for category in entry.categories]
    parts.append("</entry>")
    return "".join(parts)


def _latest(entries: list[Entry]) -> datetime.datetime:
    """The newest date the entries carry, as the generator's `latest_post_date` reads it."""
    dates = [date for entry in entries for date in (entry.updated, entry.published) if date]
    return max(dates, default=None) or datetime.datetime.now(tz=datetime.UTC)


def _response(content_type: str, latest: datetime.datetime, parts: list[str]) -> HttpResponse:
    document = "".join(parts)
    # Only the values can hold one (the markup is ours): one scan of the
    # whole document instead of one a value.
    if _UNWRITABLE.search(document):
        document = _UNWRITABLE.sub("", document)
    response = HttpResponse(
        document.encode("utf-8", "xmlcharrefreplace"), content_type=content_type
    )
    response.headers["Last-Modified"] = http_date(latest.timestamp())
    return response


def _element(name: str, text: str, attributes: str = "") -> str:
    """`<name attributes>text</name>`, or `<name attributes/>` without text, as SAX writes them.

    `attributes` is written as given: the callers' are constant and sorted by name, as Django's.
    """
    text = _text(text)
    return f"<{name}{attributes}>{text}</{name}>" if text else f"<{name}{attributes}/>"


def _text(value: str) -> str:
    """Character data escaped as `xml.sax.saxutils.escape` does it."""
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _attribute(value: str) -> str:
    """A quoted attribute value as `xml.sax.saxutils.quoteattr` writes it."""
    value = _text(value).replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
    if '"' not in value:
        return f'"{value}"'
    if "'" not in value:
        return f"'{value}'"
    return '"{}"'.format(value.replace('"', "&quot;"))
