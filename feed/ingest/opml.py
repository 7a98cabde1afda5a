"""OPML, the outline format every feed reader imports and exports: sources in and out.

Exported sources are grouped in one folder per kind (blog, news…), so an
export read back in keeps each source's kind; other folders an OPML file
has become default tags of the sources inside them, as do an outline's
`category` attribute (OPML 2.0: comma-separated, slash-delimited).
"""

import dataclasses
import datetime
from email.utils import format_datetime
from xml.etree.ElementTree import Element, SubElement, indent, tostring

from defusedxml import ElementTree as SafeElementTree
from defusedxml.common import DefusedXmlException
from django.db import transaction
from django.utils import timezone, translation
from django.utils.text import slugify

from feed.ingest.fetch import url_scheme_refusal
from feed.ingest.normalise import text_fit, text_plain
from feed.models import Kind, Source


class OpmlError(ValueError):
    """The file is not OPML we can read."""


@dataclasses.dataclass(frozen=True)
class OpmlFeed:
    """One outline with a feed URL."""

    title: str
    feed_url: str
    homepage_url: str
    folders: tuple[str, ...]
    categories: tuple[str, ...]


@dataclasses.dataclass
class OpmlImportResult:
    created: list[Source] = dataclasses.field(default_factory=list)
    existing: list[str] = dataclasses.field(default_factory=list)
    invalid: list[tuple[str, str]] = dataclasses.field(default_factory=list)


def opml_read(data: bytes) -> list[OpmlFeed]:
    """The feeds an OPML document lists (DTDs and entities refused)."""
    try:
        root = SafeElementTree.fromstring(data, forbid_dtd=True)
    except DefusedXmlException as error:
        raise OpmlError(f"refused: {error}") from None
    except SafeElementTree.ParseError as error:
        raise OpmlError(f"not XML: {error}") from None
    if root.tag != "opml" or root.find("body") is None:
        raise OpmlError("not an OPML document (no <opml><body>)")
    feeds: list[OpmlFeed] = []
    _walk(root.find("body"), folders=(), into=feeds)
    return feeds


def _walk(parent, *, folders: tuple[str, ...], into: list[OpmlFeed]) -> None:
    for outline in parent.findall("outline"):
        title = text_plain(outline.get("title") or outline.get("text") or "")
        xml_url = (outline.get("xmlUrl") or outline.get("xmlurl") or "").strip()
        if xml_url:
            categories = tuple(
                part.strip()
                for category in (outline.get("category") or "").split(",")
                for part in category.split("/")
                if part.strip()
            )
            into.append(
                OpmlFeed(
                    title=title,
                    feed_url=xml_url,
                    homepage_url=(outline.get("htmlUrl") or "").strip(),
                    folders=folders,
                    categories=categories,
                )
            )
        else:
            _walk(outline, folders=(*folders, title) if title else folders, into=into)


def _kind_names() -> dict[str, str]:
    """Each kind by its value and its label in every language we speak, lower-cased."""
    from django.conf import settings

    names = {}
    for kind in Kind:
        names[kind.value] = kind.value
        for code, _name in settings.LANGUAGES:
            with translation.override(code):
                names[str(kind.label).lower()] = kind.value
    return names


def _unique_slug(name: str, taken: set[str]) -> str:
    base = slugify(name, allow_unicode=True)[:90] or "source"
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}-{n}", n + 1
    taken.add(slug)
    return slug


@transaction.atomic
def opml_import(data: bytes, *, kind: str = Kind.BLOG) -> OpmlImportResult:
    """Create a source for every feed in the OPML document that we do not have yet."""
    result = OpmlImportResult()
    kinds = _kind_names()
    known_urls = set(Source.objects.values_list("feed_url", flat=True))
    taken = set(Source.objects.values_list("slug", flat=True))
    for feed in opml_read(data):
        label = feed.title or feed.feed_url
        refusal = url_scheme_refusal(feed.feed_url)
        if refusal or len(feed.feed_url) > 1000:
            result.invalid.append((label, refusal or "the feed URL is too long"))
            continue
        if feed.feed_url in known_urls:
            result.existing.append(label)
            continue
        known_urls.add(feed.feed_url)
        feed_kind = kind
        tags: list[str] = []
        for folder in feed.folders:
            if folder.lower() in kinds:
                feed_kind = kinds[folder.lower()]
            else:
                tags.append(folder)
        tags.extend(feed.categories)
        name = text_fit(feed.title or feed.feed_url, 200)
        homepage = feed.homepage_url
        if url_scheme_refusal(homepage) or len(homepage) > 1000:
            homepage = ""
        source = Source.objects.create(
            name=name,
            slug=_unique_slug(name, taken),
            kind=feed_kind,
            feed_url=feed.feed_url,
            homepage_url=homepage,
        )
        tags = [text_fit(tag, 100) for tag in dict.fromkeys(tags)]
        if tags:
            source.default_tags.set(tags)
        result.created.append(source)
    return result


def opml_export(*, now: datetime.datetime | None = None) -> bytes:
    """Every source with a feed, as OPML 2.0, one folder per kind."""
    now = now or timezone.now()
    opml = Element("opml", version="2.0")
    head = SubElement(opml, "head")
    SubElement(head, "title").text = "AITOP sources"
    SubElement(head, "dateCreated").text = format_datetime(now)
    body = SubElement(opml, "body")
    sources = Source.objects.exclude(feed_url="").prefetch_related("default_tags").order_by("name")
    by_kind: dict[str, list[Source]] = {}
    for source in sources:
        by_kind.setdefault(source.kind, []).append(source)
    for kind in Kind:
        if kind.value not in by_kind:
            continue
        folder = SubElement(body, "outline", text=str(kind.label), title=str(kind.label))
        for source in by_kind[kind.value]:
            attributes = {
                "type": "rss",
                "text": source.name,
                "title": source.name,
                "xmlUrl": source.feed_url,
            }
            if source.homepage_url:
                attributes["htmlUrl"] = source.homepage_url
            tags = sorted(tag.name for tag in source.default_tags.all())
            if tags:
                attributes["category"] = ",".join(tag.replace(",", " ") for tag in tags)
            SubElement(folder, "outline", attributes)
    indent(opml)
    return b'<?xml version="1.0" encoding="utf-8"?>\n' + tostring(opml, encoding="unicode").encode()
