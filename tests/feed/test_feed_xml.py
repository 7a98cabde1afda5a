"""RSS and Atom written as strings (`feed.feed_xml`) hold the bytes Django's generator writes."""

import datetime
import re

import feedparser
import pytest
from django.contrib.syndication.views import Feed, add_domain
from django.test import RequestFactory
from django.utils import feedgenerator, translation
from django.utils.encoding import iri_to_uri
from django.utils.http import http_date
from django.utils.translation import gettext as _

from feed.feed_xml import AbsoluteURLs, Channel, Entry, atom_response, rss_response
from feed.pages import stream_url
from feed.syndication import (
    OriginalLinks,
    _feed_source,
    item_authors,
    item_categories,
    item_html,
)
from tests.conftest import SHANGHAI
from tests.factories import make_item, make_source

UTC = datetime.UTC
# Values that take every branch of the escaping: markup, both quotes, white
# space an attribute must write as references, Chinese, an empty author.
AWKWARD = [
    "Ring all-reduce & <friends>",
    'She said "it\'s fine"',
    'Only "double" quotes',
    "Only 'single' quotes",
    "tab\there, line\nthere, return\rhere",
    "分布式训练 · 大模型 ]]> --> <!--",
    "",
]


# Paths and URLs a feed may be given: plain ASCII (left as it is), and what
# `iri_to_uri` quotes (Chinese, spaces, quotes, braces, a caret, a backslash).
URLS = (
    "/items/1/a-b_c.d~e/?q=x&tag=y;z=(1)+[2],!*@'$#top",
    "/items/1/鲲鹏 a/?q=x y",
    '/items/2/"quoted"/<b>/{c}/^/\\/|/`',
    "/items/3/%E9%B2%B2/",
    "/?q=two words",
    "//cdn.example/a",
    "https://b.example/é",
    "http://c.example/plain",
    "mailto:a@b",
)


# Each writer and the generator of Django's it writes the bytes of.
WRITERS = [
    (rss_response, feedgenerator.Rss201rev2Feed),
    (atom_response, feedgenerator.Atom1Feed),
]


def _channel(request, *, language="zh-hans") -> Channel:
    return Channel(
        title="AITOP · “鲲鹏” & <co>",
        link=AbsoluteURLs(request)("/?tag=分布式训练&q=a b"),
        description="The whole stream of AI news, day by day.",
        feed_url=AbsoluteURLs(request)("/feed.xml?tag=分布式训练"),
        language=language,
    )


def _entries(request) -> list[Entry]:
    published = datetime.datetime(2026, 6, 19, 9, 50, 7, 123456, tzinfo=SHANGHAI)
    return [
        Entry(
            title=text or "untitled",
            link=AbsoluteURLs(request)(f"/items/{n}/分布式-{n}/"),
            description=f"<p>{text}</p>\n<p><a href='x?a=1&b=2'>Original</a></p>",
            author=AWKWARD[-1 - n],
            published=published - datetime.timedelta(hours=n),
            updated=None if n % 2 else published + datetime.timedelta(minutes=n),
            categories=[text, "论文"] if text else [],
        )
        for n, text in enumerate(AWKWARD)
    ]


def _django_feed(feed_type, channel: Channel, entries: list[Entry]):
    feed = feed_type(
        title=channel.title,
        link=channel.link,
        description=channel.description,
        subtitle=channel.description,
        language=channel.language,
        feed_url=channel.feed_url,
    )
    for entry in entries:
        feed.add_item(
            title=entry.title,
            link=entry.link,
            description=entry.description,
            unique_id=entry.link,
            author_name=entry.author,
            pubdate=entry.published,
            updateddate=entry.updated,
            categories=entry.categories,
        )
    return feed


@pytest.mark.parametrize(("write", "feed_type"), WRITERS)
@pytest.mark.parametrize("secure", [False, True])
def test_rss_and_atom_are_byte_for_byte_what_djangos_generator_writes(write, feed_type, secure):
    request = RequestFactory().get("/feed.xml", secure=secure)
    channel, entries = _channel(request), _entries(request)

    response = write(channel, entries)
    expected = _django_feed(feed_type, channel, entries)

    assert response.content == expected.writeString("utf-8").encode()
    assert response["Content-Type"] == expected.content_type
    assert response["Last-Modified"] == http_date(expected.latest_post_date().timestamp())
    assert not feedparser.parse(response.content).bozo


@pytest.mark.parametrize(("write", "feed_type"), WRITERS)
def test_an_empty_feed_is_what_djangos_generator_writes_dated_now(write, feed_type):
    request = RequestFactory().get("/en/feed.xml")
    channel = _channel(request, language="en")
    before = datetime.datetime.now(tz=UTC).replace(microsecond=0)

    body = write(channel, []).content.decode()
    expected = _django_feed(feed_type, channel, []).writeString("utf-8")

    dated = r"<(lastBuildDate|updated)>[^<]*</\1>"
    assert re.sub(dated, "", body) == re.sub(dated, "", expected)
    parsed = feedparser.parse(body).feed
    written = parsed.get("updated_parsed")
    assert written is not None
    assert datetime.datetime(*written[:6], tzinfo=UTC) >= before


def test_absolute_urls_are_what_djangos_feed_writes():
    for secure in (False, True):
        request = RequestFactory().get("/", secure=secure)
        absolute = AbsoluteURLs(request)
        for url in URLS:
            expected = iri_to_uri(add_domain("testserver", url, secure))
            assert absolute(url) == expected


@pytest.mark.parametrize("write", [rss_response, atom_response])
def test_a_control_character_is_left_out_rather_than_failing_the_feed(write):
    # Django's generator raises on these (a 500); ingestion strips them, an
    # editor's paste may not.
    request = RequestFactory().get("/feed.xml")
    entry = _entries(request)[0]
    entry = Entry(**{**entry.__dict__, "title": "Bell\x07 and\x0b tab", "categories": ["a\x1fb"]})

    parsed = feedparser.parse(write(_channel(request), [entry]).content)

    assert not parsed.bozo, parsed.bozo_exception
    assert parsed.entries[0].title == "Bell and tab"
    assert [tag.term for tag in parsed.entries[0].tags] == ["ab"]


class DjangosEntries:
    """Entry methods of the `Feed` classes `feed.feed_xml` replaced: the stream's, the brief's."""

    def item_title(self, item):
        return item.title

    def item_link(self, item):
        return item.get_absolute_url()

    def item_author_name(self, item):
        return item_authors(item)

    def item_pubdate(self, item):
        return item.published_at

    def item_categories(self, item):
        return item_categories(item)


class _DjangosStreamFeed(DjangosEntries, Feed):
    """The stream's RSS as django.contrib.syndication wrote it before `feed.feed_xml`."""

    feed_type = feedgenerator.Rss201rev2Feed

    def __call__(self, request, *args, **kwargs):
        self.originals = OriginalLinks(request)
        return super().__call__(request, *args, **kwargs)

    def get_object(self, request):
        return _feed_source(request)

    def title(self, obj):
        return obj.title

    def link(self, obj):
        return stream_url(obj.query)

    def feed_url(self, obj):
        return obj.path

    def description(self, obj):
        return _("The whole stream of AI news, day by day.")

    subtitle = description

    def items(self, obj):
        return obj.items

    def item_description(self, item):
        return item_html(item, original_url=self.originals.url(item.pk))

    def item_updateddate(self, item):
        return item.updated_at


class _DjangosStreamAtom(_DjangosStreamFeed):
    feed_type = feedgenerator.Atom1Feed


@pytest.mark.django_db
@pytest.mark.parametrize("prefix", ["/", "/en/"])
@pytest.mark.parametrize(
    ("path", "reference"), [("feed.xml", _DjangosStreamFeed), ("feed.atom", _DjangosStreamAtom)]
)
@pytest.mark.parametrize("query", ["", "?tag=分布式训练", "?q=<friends>&kind=paper"])
def test_the_streams_feeds_are_what_djangos_feed_view_wrote(client, prefix, path, reference, query):
    arxiv = make_source(name="arXiv & <cs.LG>", slug="arxiv-cs-lg", kind="paper", handle="")
    make_item(
        title="Ring all-reduce & <friends> \"'",
        source=arxiv,
        category="paper",
        status="featured",
        tags=["分布式训练", "a&b"],
        authors="",
        summary="Halves <the> traffic.",
        recommendation="For anyone training across machines.",
        published_at=datetime.datetime(2026, 6, 19, 9, 50, tzinfo=SHANGHAI),
    )
    make_item(
        title="鲲鹏 notes <friends>",
        source=make_source(name="Lumen Lab", kind="blog", handle="@lumen"),
        kind="paper",
        category="model",
        tags=["分布式训练"],
        authors="Ada Moreau",
        published_at=datetime.datetime(2026, 6, 18, 8, tzinfo=SHANGHAI),
    )

    response = client.get(f"{prefix}{path}{query}")
    with translation.override(response["Content-Language"]):
        expected = reference()(response.wsgi_request)

    assert response.status_code == 200
    assert expected.content.count(b"<item>") + expected.content.count(b"<entry>") == 2
    assert response.content == expected.content
    assert response["Content-Type"] == expected["Content-Type"]
