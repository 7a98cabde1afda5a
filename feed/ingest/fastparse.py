"""The fast path for what most feeds are: well-formed RSS (0.9x to 2.0) and Atom 1.0, on lxml.

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
same goes to feedparser: Atom 0.3, XML that is not well-formed (feedparser
reads what it can and says so), DTDs and entities, podcasts' iTunes
elements, arXiv's own documents (its API answers and listings, in its
namespace), and the odd uses of base URIs and RDF listed where they are
refused (`_Unsure`). FeedBurner's original links and the categories that
arXiv's rules read from any entry linking to a paper are read here as
feedparser reads them; so are `xml:base` (links and ids resolved against
the base in force, which feedparser keeps as a stack that does not forget
a base set inside an element whose parent had none) and RSS 1.0's items,
siblings of the channel, with `rdf:about` as their id.
"""

import re

from feedparser.datetimes import _parse_date
from feedparser.urls import _urljoin, make_safe_absolute_uri
from lxml import etree

ATOM = "{http://www.w3.org/2005/Atom}"
CONTENT_ENCODED = "{http://purl.org/rss/1.0/modules/content/}encoded"
DC = "{http://purl.org/dc/elements/1.1/}"
MEDIA = "{http://search.yahoo.com/mrss/}"
XHTML_DIV = "{http://www.w3.org/1999/xhtml}div"
FEEDBURNER_ORIGLINK = "{http://rssnamespace.org/feedburner/ext/1.0}origLink"
DCTERMS = "{http://purl.org/dc/terms/}"
RDF = "{http://www.w3.org/1999/02/22-rdf-syntax-ns#}"
XML_BASE = "{http://www.w3.org/XML/1998/namespace}base"
RSS10 = "http://purl.org/rss/1.0/"
RSS090 = "http://my.netscape.com/rdf/simple/0.9/"
# Markers of documents feedparser reads more of (or differently) than this path.
# (Podcasts' iTunes elements override the summary and author in an order of their own.)
_SLOW_MARKERS = (
    b"<!DOCTYPE",
    b"<!ENTITY",
    b"arxiv.org/schemas/atom",
    b"itunes.com/dtds",
)
# feedparser's names for <rss version="…">; any other 2.x is "rss20".
_RSS_VERSIONS = {"0.91": "rss091u", "0.92": "rss092", "0.93": "rss093", "0.94": "rss094"}
# A base URI attribute (xml:base, or feedparser's bare "base") somewhere in the document.
# Searched in the lowered body: with re.IGNORECASE the search found no literal
# to look for first and took 3.5 times as long.
_BASE_ATTRIBUTE = re.compile(rb"base\s*=")
# Elements of an RSS item that feedparser reads into fields this path does
# not read them into (feedparser reads Atom's namespace as RSS's own).
_RSS_UNREAD = frozenset(
    [f"{ATOM}{name}" for name in ("link", "title", "id", "summary", "content", "published")]
    + [f"{ATOM}issued", f"{ATOM}author", f"{DC}description", f"{DC}subject", f"{DC}author"]
)
# feedparser's short names for content types.
_CONTENT_TYPES = {"text": "text/plain", "plain": "text/plain", "html": "text/html"}
_CONTENT_TYPES["xhtml"] = "application/xhtml+xml"
_ENTITY_LIKE = re.compile("&([A-Za-z0-9_]+);")
# The first of these namespaces declared names the version for feedparser.
_ATOM_NAMESPACE = re.compile(rb"http://www\.w3\.org/2005/atom", re.IGNORECASE)
# "someone@example.com (Some One)": RSS's author element, as feedparser splits it.
_EMAIL_NAME = re.compile(r"^\s*\S+@\S+\s*\((?P<name>[^)]*)\)\s*$")
_EMAIL = re.compile(r"^\s*\S+@\S+\s*$")


def _parser() -> etree.XMLParser:
    # No entities, no DTD, no network: the feed's bytes and nothing else.
    return etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, remove_comments=True
    )


class _Unsure(Exception):
    """Something in the document that feedparser reads in a way of its own: it goes there."""


class _Bases:
    """The base URI feedparser has in force at each element's start and end tags.

    feedparser keeps a stack of bases, and on an end tag goes back to the
    parent's base only when that is not empty: a base set inside an element
    whose ancestors had none stays in force for what follows. Walked only for
    documents that have a base attribute; for the others every base is "".
    """

    def __init__(self, root):
        self.start: dict = {}
        self.end: dict = {}
        base, stack = "", []
        for event, element in etree.iterwalk(root, events=("start", "end")):
            if event == "end":
                self.end[element] = base
                stack.pop()
                if stack and stack[-1]:
                    base = stack[-1]
                continue
            for name in element.attrib:
                # feedparser also takes a "base" attribute of any other
                # namespace, and any case, as the base.
                if name != XML_BASE and name.rpartition("}")[2].lower() == "base":
                    raise _Unsure
            if element.tag.rpartition("}")[2] == "div" and not any(
                (a.get("type") or "").lower() in ("xhtml", "application/xhtml+xml")
                for a in element.iterancestors(f"{ATOM}*")
            ):
                # feedparser skips a div's end tag (and the stack's pop)
                # inside content that is not XHTML.
                raise _Unsure
            given = element.get(XML_BASE) or base
            base = (make_safe_absolute_uri(base, given) or base) if base else _urljoin(base, given)
            stack.append(base)
            self.start[element] = base


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
    try:
        bases = _Bases(root) if _BASE_ATTRIBUTE.search(body.lower()) else None
        if root.tag == "rss":
            return _rss(root, bases)
        if root.tag == f"{RDF}RDF":
            return _rdf(root, body, bases)
        if root.tag == f"{ATOM}feed" and root.find(".//item") is None:
            # (feedparser would read an <item> there as an entry too.)
            title, _ = _atom_text(root.find(f"{ATOM}title"))
            entries = [_atom_entry(entry, bases) for entry in root.iter(f"{ATOM}entry")]
            return "atom10", title, entries, None
    except _Unsure:
        return None
    return None


def _rss(root, bases) -> tuple:
    version = root.get("version") or ""
    version = _RSS_VERSIONS.get(version, "rss20" if version.startswith("2.") else "rss")
    channel = root.find("channel")
    if not version or channel is None or _rss_namespaces(root):
        # No version, or a namespace that names another one first for feedparser.
        raise _Unsure
    items = _items(root)
    return (
        version,
        _text(channel.find("title")),
        [_rss_item(i, bases) for i in items],
        _ttl(channel),
    )


def _rss_namespaces(root) -> list[str]:
    """RSS 1.0 or 0.90 namespaces declared on the root (RSS 0.90 counts only as the default)."""
    found = [uri for uri in root.nsmap.values() if uri.lower() == RSS10]
    if (root.nsmap.get(None) or "").lower() == RSS090:
        found.append(RSS090)
    return found


def _rdf(root, body: bytes, bases) -> tuple:
    """RSS 0.90 and 1.0: items beside the channel, their elements in RSS's namespace."""
    namespaces = _rss_namespaces(root)
    if len(namespaces) != 1 or _ATOM_NAMESPACE.search(body):
        # feedparser's version is the first of these namespaces declared.
        raise _Unsure
    # feedparser reads RSS's own namespace as no namespace at all.
    uri = next(uri for uri in root.nsmap.values() if uri.lower() == namespaces[0])
    for element in root.iter(f"{{{uri}}}*"):
        element.tag = etree.QName(element).localname
    channel = root.find("channel")
    title = _text(channel.find("title")) if channel is not None else ""
    version = "rss10" if namespaces[0] == RSS10 else "rss090"
    return version, title, [_rss_item(i, bases) for i in _items(root)], None


def _items(root) -> list:
    # feedparser reads an item wherever it is, and its own way when one is
    # inside another.
    items = list(root.iter("item"))
    if any(item.find(".//item") is not None for item in items):
        raise _Unsure
    return items


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


def _rss_item(item, bases: _Bases | None) -> dict:
    if any(child.tag in _RSS_UNREAD for child in item) or any(
        link.get("href") is not None for link in item.iterfind("link")
    ):
        raise _Unsure
    guid_element = item.find("guid")
    guid = _text(guid_element)
    permalink = guid_element is not None and _permalink(guid_element)
    if permalink and guid:
        # feedparser resolves a permalink guid (but not another) against the base.
        guid = _urljoin(_base(bases, guid_element, end=True), guid)
    if guid_element is None:
        # RSS 1.0 names its items by rdf:about.
        guid = item.get(f"{RDF}about") or ""
    link = ""
    links = item.findall("link")
    if links:
        # The last link wins, resolved, then with feedparser's repair of
        # query strings mangled as entities ("?a=1&amp;amp;b=2").
        link = _text(links[-1])
        if link:
            link = _urljoin(_base(bases, links[-1], end=True), link)
        if "&" in link:
            link = _ENTITY_LIKE.sub(r"&\g<1>", link.replace("&amp;", "&"))
    elif permalink:
        # feedparser's rule: a permalink guid stands in for a missing link.
        link = guid
    entry = {
        "id": guid,
        "link": link,
        "title": _rss_title(item),
        "summary": _text(item.find("description")),
        # feedparser keeps the last of each kind of date, parsed or not.
        "published_parsed": _last_date(item, "pubDate", f"{DCTERMS}issued"),
        "updated_parsed": _last_date(item, f"{DC}date", f"{DCTERMS}modified", f"{ATOM}updated"),
        **_rss_authors(item),
    }
    if not entry["summary"]:
        entry["summary"] = _media_description(item)
    encoded_element = item.find(CONTENT_ENCODED)
    encoded = _text(encoded_element)
    if encoded:
        base = _base(bases, encoded_element)
        entry["content"] = [{"value": encoded, "type": "text/html", "base": base}]
    return entry | _publisher_extras(item, [_text(c) for c in item.findall("category")])


def _base(bases: _Bases | None, element, *, end: bool = False) -> str:
    if bases is None:
        return ""
    return (bases.end if end else bases.start)[element]


def _permalink(guid) -> bool:
    # feedparser lower-cases attribute names.
    values = [v for k, v in guid.attrib.items() if k.lower() == "ispermalink"]
    return (values[-1] if values else "true") == "true"


def _rss_title(item) -> str:
    """The first title (or dc:title) that is not empty: feedparser keeps that one."""
    title = ""
    for element in item.iterchildren("title", f"{DC}title"):
        title = _text(element)
        if title:
            break
    return title


def _last_date(item, *tags) -> object:
    found = [*item.iterchildren(*tags)]
    value = _text(found[-1]) if found else ""
    return _parse_date(value) if value else None


def _publisher_extras(element, categories: list[str]) -> dict:
    """What feed.ingest.formats reads beyond the common fields: FeedBurner's link, categories."""
    extras: dict = {"tags": [{"term": term} for term in categories if term]}
    found = element.find(FEEDBURNER_ORIGLINK)
    # With attributes, feedparser keeps them and not the link.
    original = _text(found) if found is not None and not found.attrib else ""
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


def _atom_link(entry, bases: _Bases | None) -> str | None:
    """The last alternate HTML link, resolved (even if empty): what feedparser keeps as the link."""
    found = None
    for link in entry.iterchildren(f"{ATOM}link"):
        attributes = {name.lower(): value for name, value in link.attrib.items()}
        href = attributes.get(
            "url", attributes.get("uri", attributes.get("href"))
        ) or attributes.get("href")
        if href is None:
            # feedparser would read the element's text as the link.
            raise _Unsure
        kind = attributes.get("type", "text/html").lower()
        if attributes.get("rel", "alternate").lower() == "alternate" and (
            _CONTENT_TYPES.get(kind, kind) in ("text/html", "application/xhtml+xml")
        ):
            found = _urljoin(_base(bases, link), href)
    return found


def _atom_entry(entry, bases: _Bases | None) -> dict:
    title, _ = _atom_text(entry.find(f"{ATOM}title"))
    summary, _ = _atom_text(entry.find(f"{ATOM}summary"))
    content_element = entry.find(f"{ATOM}content")
    content, content_type = _atom_text(content_element)
    id_element = entry.find(f"{ATOM}id")
    entry_id = _text(id_element)
    permalink = id_element is not None and _permalink(id_element)
    if entry_id and permalink:
        entry_id = _urljoin(_base(bases, id_element, end=True), entry_id)
    result = {
        "id": entry_id,
        # As in RSS, feedparser lets the id stand in for a missing link.
        "link": (entry_id if permalink else "")
        if (link := _atom_link(entry, bases)) is None
        else link,
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
        base = _base(bases, content_element)
        result["content"] = [{"value": content, "type": content_type, "base": base}]
    terms = [(c.get("term") or "").strip() for c in entry.findall(f"{ATOM}category")]
    return result | _publisher_extras(entry, terms)
