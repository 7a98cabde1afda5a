"""Tag facets beside the stream, the tag and source indexes, sitemap.xml and robots.txt."""

import datetime
import re
import xml.etree.ElementTree as ET
from html import unescape
from urllib.parse import quote

import pytest

from tests.factories import make_item, make_source

pytestmark = pytest.mark.django_db

SITEMAP_NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}


def facets(html: str) -> list[tuple[str, int, str]]:
    aside = html[html.index('<ul class="facets">') :]
    aside = aside[: aside.index("</ul>")]
    return [
        (name, int(count), unescape(href))
        for href, name, count in re.findall(
            r'<a href="([^"]+)"><span class="facet-name">([^<]+)</span> '
            r'<span class="facet-count">(\d+)</span>',
            aside,
        )
    ]


def test_facets_count_the_tags_within_the_current_filter_most_used_first(client, clock):
    make_item(kind="paper", tags=["量化", "推理"])
    make_item(kind="paper", tags=["量化"])
    make_item(kind="blog", tags=["推理", "芯片"])
    make_item(kind="paper", tags=["量化"], status="draft")

    assert facets(client.get("/").text) == [
        ("推理", 2, "/?tag=推理"),
        ("量化", 2, "/?tag=量化"),
        ("芯片", 1, "/?tag=芯片"),
    ]
    assert facets(client.get("/?kind=paper").text) == [
        ("量化", 2, "/?kind=paper&tag=量化"),
        ("推理", 1, "/?kind=paper&tag=推理"),
    ]


def test_a_facet_link_adds_its_tag_to_the_active_ones(client, clock):
    make_item(tags=["量化", "推理"])
    make_item(tags=["量化"])

    assert facets(client.get("/?tag=量化").text) == [
        ("推理", 1, "/?tag=量化&tag=推理"),
    ]


def test_a_facet_link_in_characters_leads_where_its_percent_encoded_form_did(client, clock):
    make_item(title="Both", tags=["量化", "推理"])
    make_item(title="Only one", tags=["量化"])
    [(_, _, link)] = facets(client.get("/?tag=量化").text)

    # What a browser sends for the link: its UTF-8 percent-encoded.
    sent = client.get(quote(link, safe="/?=&"))

    assert sent.status_code == 200
    assert "Both" in sent.text and "Only one" not in sent.text


def test_the_tag_index_lists_visible_tags_with_counts_linking_to_the_stream(client, clock):
    make_item(tags=["量化", "Hugging Face"])
    make_item(tags=["量化"])
    make_item(tags=["秘密"], status="draft")

    html = client.get("/tags/").text
    entries = re.findall(
        r'<a href="([^"]+)"><span class="facet-name">([^<]+)</span> '
        r'<span class="facet-count">(\d+)</span>',
        html,
    )

    assert entries == [
        ("/?tag=量化", "量化", "2"),
        ("/?tag=hugging-face", "Hugging Face", "1"),
    ]
    assert "秘密" not in html


def test_the_source_index_lists_sources_with_kind_and_visible_counts(client, clock):
    arxiv = make_source(name="arXiv cs.LG", slug="arxiv-cs-lg", kind="paper")
    mira = make_source(name="Mira Okafor", slug="mira", kind="tweet", handle="@mira")
    quiet = make_source(name="Only drafts", slug="quiet")
    make_item(source=arxiv)
    make_item(source=arxiv)
    make_item(source=arxiv, status="rejected")
    make_item(source=mira)
    make_item(source=quiet, status="draft")

    html = client.get("/sources/").text
    rows = [
        re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", unescape(row))).strip()
        for row in re.findall(r"<tr>(.*?)</tr>", html, re.S)[1:]
    ]

    assert rows == ["arXiv cs.LG 论文 2", "Mira Okafor @mira 推文 1"]
    assert '<a href="/?source=arxiv-cs-lg">arXiv cs.LG</a>' in html
    assert "Only drafts" not in html


def sitemap_locations(client, url: str) -> list[str]:
    response = client.get(url)
    assert response.status_code == 200
    tree = ET.fromstring(response.content)  # noqa: S314 - our own sitemap, just rendered
    return [loc.text for loc in tree.findall("sm:*/sm:loc", SITEMAP_NS)]


def test_the_sitemap_lists_the_pages_and_visible_items_only(client, clock):
    visible = make_item(title="Visible story")
    make_item(title="Draft story", status="draft")
    make_item(title="Rejected story", status="rejected")
    make_item(title="Tomorrow", published_at=clock.now.replace(day=21))

    assert sitemap_locations(client, "/sitemap.xml") == [
        "http://testserver/sitemap-pages.xml",
        "http://testserver/sitemap-items-2026-06.xml",
    ]
    assert sitemap_locations(client, "/sitemap-pages.xml") == [
        "http://testserver/",
        "http://testserver/tags/",
        "http://testserver/sources/",
    ]
    assert sitemap_locations(client, "/sitemap-items-2026-06.xml") == [
        f"http://testserver{visible.get_absolute_url()}"
    ]


def test_the_sitemap_has_a_section_per_month_each_holding_that_month(client, clock):
    june = make_item(title="June", published_at=clock.now - datetime.timedelta(days=1))
    april = make_item(title="April", published_at=clock.now - datetime.timedelta(days=60))

    assert sitemap_locations(client, "/sitemap.xml")[1:] == [
        "http://testserver/sitemap-items-2026-06.xml",
        "http://testserver/sitemap-items-2026-05.xml",
        "http://testserver/sitemap-items-2026-04.xml",
    ]
    assert sitemap_locations(client, "/sitemap-items-2026-04.xml") == [
        f"http://testserver{april.get_absolute_url()}"
    ]
    assert sitemap_locations(client, "/sitemap-items-2026-05.xml") == []
    assert sitemap_locations(client, "/sitemap-items-2026-06.xml") == [
        f"http://testserver{june.get_absolute_url()}"
    ]
    assert client.get("/sitemap-items-2026-13.xml").status_code == 404
    assert client.get("/sitemap-nothing.xml").status_code == 404


def test_every_sitemap_url_names_its_english_alternate(client, clock):
    item = make_item(title="Visible story")

    xml = client.get("/sitemap-items-2026-06.xml").text

    assert (
        f'<xhtml:link rel="alternate" hreflang="en" href="http://testserver/en{item.get_absolute_url()}"/>'
        in xml
    )


def test_facets_follow_the_desk_at_once(client, clock):
    make_item(tags=["量化"])
    client.get("/")

    clock.move(datetime.timedelta(minutes=1))
    make_item(tags=["推理"])

    assert ("推理", 1, "/?tag=推理") in facets(client.get("/").text)


def test_facets_count_the_tags_of_the_page_shown(client, clock, settings):
    settings.AITOP_STREAM_PAGE_ITEMS = 2
    make_item(tags=["旧"], published_at=clock.now - datetime.timedelta(days=3))
    make_item(tags=["新"], published_at=clock.now - datetime.timedelta(hours=2))
    make_item(tags=["新", "热"], published_at=clock.now - datetime.timedelta(hours=1))

    first = client.get("/").text
    older = re.search(r'<a class="pager-older" href="([^"]+)" rel="next"', first)[1]

    assert facets(first) == [("新", 2, "/?tag=新"), ("热", 1, "/?tag=热")]
    assert facets(client.get(unescape(older)).text) == [("旧", 1, "/?tag=旧")]


def test_the_indexes_count_only_the_newest_window(client, clock, settings):
    settings.AITOP_FACET_WINDOW = 2
    make_item(tags=["旧"], published_at=clock.now - datetime.timedelta(days=3))
    make_item(tags=["新"], published_at=clock.now - datetime.timedelta(hours=2))
    make_item(tags=["新"], published_at=clock.now - datetime.timedelta(hours=1))

    assert "新" in client.get("/tags/").text
    assert "旧" not in client.get("/tags/").text


def test_robots_txt_points_at_the_sitemap_and_keeps_crawlers_off_the_counter(client):
    response = client.get("/robots.txt")

    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response.text.splitlines() == [
        "User-agent: *",
        "Disallow: /admin/",
        "Disallow: /go/",
        "Disallow: /i18n/setlang/",
        "",
        "Sitemap: http://testserver/sitemap.xml",
    ]
