"""Feeds out: RSS 2.0, Atom and JSON Feed 1.1, each under the filters of its page."""

import datetime
import json
import re
from html import unescape

import feedparser
import pytest
from django.utils import translation
from django.utils.html import format_html, format_html_join

from feed.models import Category, Item
from feed.syndication import category_label, item_html
from tests.conftest import SHANGHAI
from tests.factories import make_item, make_source

pytestmark = pytest.mark.django_db


@pytest.fixture
def items(clock):
    arxiv = make_source(name="arXiv cs.LG", slug="arxiv-cs-lg", kind="paper")
    paper = make_item(
        title="Ring all-reduce & <friends>",
        source=arxiv,
        category="paper",
        status="featured",
        tags=["分布式训练"],
        authors="Ada Moreau, Lin Qiao",
        summary="Halves the traffic.",
        recommendation="For anyone training across machines.",
        published_at=datetime.datetime(2026, 6, 19, 9, 50, tzinfo=SHANGHAI),
    )
    blog = make_item(
        title="Lumen-3 notes",
        source=make_source(name="Lumen Lab", kind="blog"),
        category="model",
        tags=["大模型"],
        published_at=datetime.datetime(2026, 6, 18, 8, tzinfo=SHANGHAI),
    )
    make_item(title="A draft", status="draft", tags=["分布式训练"])
    return paper, blog


@pytest.mark.parametrize("url", ["/feed.xml", "/feed.atom"])
def test_rss_and_atom_parse_back_with_every_visible_item(client, items, url):
    paper, _ = items

    parsed = feedparser.parse(client.get(url).content)

    assert not parsed.bozo, parsed.bozo_exception
    assert [entry.title for entry in parsed.entries] == [
        "Ring all-reduce & <friends>",
        "Lumen-3 notes",
    ]
    entry = parsed.entries[0]
    assert entry.link == f"http://testserver{paper.get_absolute_url()}"
    assert entry.author == "Ada Moreau, Lin Qiao"
    assert [tag.term for tag in entry.tags] == ["论文", "分布式训练"]
    assert entry.published_parsed[:5] == (2026, 6, 19, 1, 50)  # 09:50 in Shanghai, in UTC
    assert "Halves the traffic." in entry.summary
    assert "For anyone training across machines." in entry.summary
    assert f"http://testserver/go/{paper.pk}/" in entry.summary


def test_the_rss_feed_is_rss_2_and_atom_is_atom(client, items):
    assert feedparser.parse(client.get("/feed.xml").content).version == "rss20"
    assert feedparser.parse(client.get("/feed.atom").content).version == "atom10"
    assert client.get("/feed.xml")["Content-Type"] == "application/rss+xml; charset=utf-8"
    assert client.get("/feed.atom")["Content-Type"] == "application/atom+xml; charset=utf-8"


@pytest.mark.parametrize("path", ["feed.xml", "feed.atom"])
@pytest.mark.parametrize(("prefix", "language"), [("/", "zh-hans"), ("/en/", "en")])
def test_rss_and_atom_name_the_language_of_their_address(client, items, path, prefix, language):
    # RSS's <language>, Atom's xml:lang: once the repr of a method.
    parsed = feedparser.parse(client.get(f"{prefix}{path}").content)

    assert parsed.feed.language == language


@pytest.mark.parametrize("url", ["/feed.xml", "/feed.atom"])
def test_a_filtered_feed_carries_the_filtered_items_only(client, items, url):
    parsed = feedparser.parse(client.get(f"{url}?tag=分布式训练&featured=1").content)

    assert [entry.title for entry in parsed.entries] == ["Ring all-reduce & <friends>"]
    assert parsed.feed.title == "AITOP · 分布式训练 · 只看精选"
    assert parsed.feed.link == (
        "http://testserver/?tag=%E5%88%86%E5%B8%83%E5%BC%8F%E8%AE%AD%E7%BB%83&featured=1"
    )


def test_the_json_feed_is_json_feed_1_1_with_the_filtered_items(client, items):
    paper, _ = items

    response = client.get("/feed.json?kind=paper")
    body = json.loads(response.content)

    assert response["Content-Type"] == "application/feed+json; charset=utf-8"
    assert body["version"] == "https://jsonfeed.org/version/1.1"
    assert body["title"] == "AITOP · 论文"
    assert body["home_page_url"] == "http://testserver/?kind=paper"
    assert body["feed_url"] == "http://testserver/feed.json?kind=paper"
    assert body["language"] == "zh-hans"
    assert len(body["items"]) == 1
    item = body["items"][0]
    # Every item has the required id and one of content_html / content_text.
    assert item["id"] == f"http://testserver{paper.get_absolute_url()}"
    assert item["url"] == item["id"]
    assert item["external_url"] == paper.url
    assert item["title"] == "Ring all-reduce & <friends>"
    assert item["summary"] == "Halves the traffic."
    assert item["content_text"] == "Halves the traffic.\n\nFor anyone training across machines."
    assert f'<a href="http://testserver/go/{paper.pk}/">原文</a>' in item["content_html"]
    assert item["date_published"] == "2026-06-19T01:50:00+00:00"
    assert item["authors"] == [{"name": "Ada Moreau, Lin Qiao"}]
    assert item["tags"] == ["论文", "分布式训练"]
    assert item["_aitop"] == {
        "kind": "paper",
        "category": "paper",
        "heat": 0,
        "featured": True,
        "source": "arXiv cs.LG",
    }


def test_a_feed_with_a_bad_filter_is_a_400_naming_it(client, items):
    response = client.get("/feed.xml?kind=podcast")

    assert response.status_code == 400
    assert "参数 <code>kind</code>" in response.text


def test_every_stream_page_links_to_the_feeds_of_its_filter(client, items):
    html = client.get("/?tag=分布式训练&kind=paper&before=2026-06-20").text
    query = "?kind=paper&amp;tag=分布式训练"

    alternates = re.findall(
        r'<link rel="alternate" type="([^"]+)" title="[^"]+" href="([^"]+)">', html
    )
    assert alternates == [
        ("application/rss+xml", f"/feed.xml{query}"),
        ("application/atom+xml", f"/feed.atom{query}"),
        ("application/feed+json", f"/feed.json{query}"),
    ]
    # A visible subscribe link too, not only the <head> one.
    aside = html[html.index('<ul class="feed-links">') :]
    assert unescape(re.search(r'<a href="([^"]+)"', aside).group(1)) == unescape(
        f"/feed.xml{query}"
    )


def test_a_day_page_links_to_the_feeds_of_its_filter(client, items):
    html = client.get("/days/2026-06-19/?kind=paper").text

    assert '<link rel="alternate" type="application/rss+xml"' in html
    assert 'href="/feed.xml?kind=paper"' in html


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_an_entrys_html_and_categories_are_what_djangos_helpers_write(language):
    # feed/syndication.py writes them without format_html and get_category_display.

    item = Item(
        summary="A <b>bold</b> claim & \"quotes\" 'too'",
        recommendation="因为 <script>alert(1)</script> & more",
    )
    original = "https://aitop.example/go/7/?a=1&b=<2>"
    with translation.override(language):
        for summary, recommendation in ((item.summary, item.recommendation), ("", ""), ("x", "")):
            item.summary, item.recommendation = summary, recommendation
            parts = [format_html("<p>{}</p>", summary)] if summary else []
            if recommendation:
                why = translation.gettext("Why it matters:")
                parts.append(format_html("<p><strong>{}</strong> {}</p>", why, recommendation))
            link = format_html(
                '<p><a href="{}">{}</a></p>', original, translation.gettext("Original")
            )
            parts.append(link)
            expected = format_html_join("\n", "{}", ((part,) for part in parts))

            assert item_html(item, original_url=original) == expected
        for value in [*Category.values, "not-a-category"]:
            assert category_label(value) == str(Item(category=value).get_category_display())
