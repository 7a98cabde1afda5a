"""The fast path for what most feeds are: well-formed RSS 2.0 and Atom 1.0, read with lxml.

feedparser reads a 10,000-entry feed in about 8 s, three quarters of a
fetch's time (docs/ingestion.md); lxml builds the same document's tree in
a tenth of a second. This module reads that tree into the very dicts
`parse._raw_from_feedparser` takes from feedparser, with feedparser's own
date parser, so both paths give the same entries: a test
(`tests/feed/test_ingest_fastparse.py`) compares them, field by field after
normalising, on every file of the shared corpus the fast path accepts.

fastfeedparser (also on lxml) was measured first and is not used: it
invents ids from links and rewrites descriptions into plain text, so it
does not read the same. Everything the fast path is not sure to read the
same goes to feedparser: RSS 0.9x and 1.0 (RDF), XML that is not
well-formed (feedparser reads what it can and says so), DTDs and entities,
xml:base, podcasts' iTunes elements, and arXiv's own documents (its API
answers and listings, in its namespace). FeedBurner's original links and
the categories that arXiv's rules read from any entry linking to a paper
are read here as feedparser reads them.
"""

import re

from feedparser.datetimes import _parse_date
from lxml import etree

ATOM = "{http://www.w3.org/2005/Atom}"
CONTENT_ENCODED = "{http://purl.org/rss/1.0/modules/content/}encoded"
DC = "{http://purl.org/dc/elements/1.1/}"
MEDIA = "{http://search.yahoo.com/mrss/}"
XHTML_DIV = "{http://www.w3.org/1999/xhtml}div"
FEEDBURNER_ORIGLINK = "{http://rssnamespace.org/feedburner/ext/1.0}origLink"
# Markers of documents feedparser reads more of (or differently) than this path.
# (Podcasts' iTunes elements override the summary and author in an order of their own.)
_SLOW_MARKERS = (
    b"<!DOCTYPE",
    b"<!ENTITY",
    b"arxiv.org/schemas/atom",
    b"xml:base",
    b"itunes.com/dtds",
)
_RSS_VERSIONS = {"2.0", "2.0.1"}
# "someone@example.com (Some One)": RSS's author element, as feedparser splits it.
_EMAIL_NAME = re.compile(r"^\s*\S+@\S+\s*\((?P<name>[^)]*)\)\s*$")
_EMAIL = re.compile(r"^\s*\S+@\S+\s*$")


def _parser() -> etree.XMLParser:
    # No entities, no DTD, no network: the feed's bytes and nothing else.
    return etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, remove_comments=True
    )


def fast_parse(body: bytes) -> tuple[str, str, list[dict], int | None] | None:
    """The format (feedparser's name), title, entries (feedparser-shaped dicts) and <ttl>.

    None when the document is for feedparser to read.
    """
    if any(marker in body for marker in _SLOW_MARKERS):
        return None
    try:
        root = etree.fromstring(body, parser=_parser())
    except (etree.XMLSyntaxError, ValueError):
        return None
    if root.xpath("boolean(//item//item)"):
        # An item inside an item: feedparser's reading of that is its own.
        return None
    if root.tag == "rss" and (root.get("version") or "").strip() in _RSS_VERSIONS:
        channel = root.find("channel")
        if channel is None:
            return None
        title = _text(channel.find("title"))
        return "rss20", title, [_rss_item(item) for item in channel.iter("item")], _ttl(channel)
    if root.tag == f"{ATOM}feed":
        title, _ = _atom_text(root.find(f"{ATOM}title"))
        return "atom10", title, [_atom_entry(entry) for entry in root.iter(f"{ATOM}entry")], None
    return None


def _ttl(channel) -> int | None:
    value = channel.findtext("ttl")
    return int(value.strip()) if value and value.strip().isdigit() else None


def _text(element) -> str:
    if element is None:
        return ""
    return "".join(element.itertext()).strip()


def _date(*elements) -> object:
    for element in elements:
        value = _text(element)
        if value:
            parsed = _parse_date(value)
            if parsed is not None:
                return parsed
    return None


def _rss_item(item) -> dict:
    guid_element = item.find("guid")
    guid = _text(guid_element)
    link = _text(item.find("link"))
    permalink = guid_element is not None and guid_element.get("isPermaLink", "true") == "true"
    if item.find("link") is None and permalink:
        # feedparser's rule: a permalink guid stands in for a missing link.
        link = guid
    entry = {
        "id": guid,
        "link": link,
        "title": _text(item.find("title")),
        "summary": _text(item.find("description")),
        "published_parsed": _date(item.find("pubDate"), item.find(f"{DC}date")),
        **_rss_authors(item),
    }
    if not entry["summary"]:
        entry["summary"] = _media_description(item)
    encoded = _text(item.find(CONTENT_ENCODED))
    if encoded:
        entry["content"] = [{"value": encoded, "type": "text/html", "base": ""}]
    return entry | _publisher_extras(item, [_text(c) for c in item.findall("category")])


def _publisher_extras(element, categories: list[str]) -> dict:
    """What feed.ingest.formats reads beyond the common fields: FeedBurner's link, categories."""
    extras: dict = {"tags": [{"term": term} for term in categories if term]}
    original = _text(element.find(FEEDBURNER_ORIGLINK))
    if original:
        extras["feedburner_origlink"] = original
    return extras


def _rss_authors(item) -> dict:
    """`authors` (names) and, for an author given by address alone, `author`."""
    names, addresses = [], []
    elements = [
        *item.findall("author"),
        *item.findall(f"{DC}creator"),
    ]
    for element in elements:
        value = _text(element)
        match = _EMAIL_NAME.match(value)
        if match:
            value = match.group("name").strip()
        elif _EMAIL.match(value):
            addresses.append(value.strip())
            continue
        if value:
            names.append({"name": value})
    result: dict = {"authors": names}
    if addresses:
        result["author"] = addresses[0]
    return result


def _media_description(element) -> str:
    """Media RSS's description (YouTube, podcasts), which feedparser reads as the summary."""
    found = element.find(f"{MEDIA}description")
    if found is None:
        group = element.find(f"{MEDIA}group")
        found = group.find(f"{MEDIA}description") if group is not None else None
    return _text(found)


def _atom_text(element) -> tuple[str, str]:
    """An Atom text construct's value and type, as feedparser gives them."""
    if element is None:
        return "", ""
    kind = (element.get("type") or "text").strip().lower()
    if kind == "xhtml":
        div = element.find(XHTML_DIV)
        holder = div if div is not None else element
        inner = (holder.text or "") + "".join(
            etree.tostring(child, encoding="unicode", method="html") for child in holder
        )
        # Atom's XHTML namespace on every child is not part of the markup.
        return re.sub(r'\sxmlns(:\w+)?="[^"]*"', "", inner).strip(), "application/xhtml+xml"
    media = "text/html" if kind == "html" else "text/plain" if kind == "text" else kind
    return _text(element), media


def _atom_link(entry) -> str:
    for link in entry.findall(f"{ATOM}link"):
        if (link.get("rel") or "alternate").strip() == "alternate" and link.get("href"):
            return link.get("href").strip()
    return ""


def _atom_entry(entry) -> dict:
    title, _ = _atom_text(entry.find(f"{ATOM}title"))
    summary, _ = _atom_text(entry.find(f"{ATOM}summary"))
    content, content_type = _atom_text(entry.find(f"{ATOM}content"))
    entry_id = _text(entry.find(f"{ATOM}id"))
    result = {
        "id": entry_id,
        # As in RSS, feedparser lets the id stand in for a missing link.
        "link": _atom_link(entry) or entry_id,
        "title": title,
        "summary": summary,
        "published_parsed": _date(entry.find(f"{ATOM}published"), entry.find(f"{ATOM}issued")),
        "updated_parsed": _date(entry.find(f"{ATOM}updated"), entry.find(f"{ATOM}modified")),
        "authors": [
            {"name": name}
            for author in entry.findall(f"{ATOM}author")
            if (name := _text(author.find(f"{ATOM}name")))
        ],
    }
    if not summary:
        result["summary"] = _media_description(entry)
    if content:
        result["content"] = [{"value": content, "type": content_type, "base": ""}]
    terms = [(c.get("term") or "").strip() for c in entry.findall(f"{ATOM}category")]
    return result | _publisher_extras(entry, terms)
