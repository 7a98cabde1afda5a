"""feed/page_html.py writes exactly the pages feed/stream.html and feed/day.html render.

Each request below goes through the real stream or day view, in both
languages; the view's context is also given to the template, and the two
pages must be the same bytes.
"""

import datetime
import re
from urllib.parse import quote

import pytest
from django.template.loader import render_to_string

import feed.views.stream as stream_views
from feed.page_html import day_page_html, stream_page_html
from tests.factories import make_item, make_source, make_tag

pytestmark = pytest.mark.django_db

JUNE = datetime.datetime(2026, 6, 18, 9, tzinfo=datetime.UTC)

# Every kind of page the stream serves: filtered and not, each filter and all of
# them, values that need escaping, a search that finds nothing, a date range.
PAGES = [
    "/",
    "/?tag=agents",
    "/?tag=agents&tag=" + quote("大模型"),
    "/?kind=paper&category=model&featured=1",
    "/?featured=0&source=lab",
    "/?q=" + quote("a&b <c> \"d\" 'e'"),
    "/?q=nothing-matches-this",
    "/?since=2026-06-01&until=2026-06-30&tag=missing-tag",
    "/?source=no-such-source",
]


@pytest.fixture
def pages_compared(monkeypatch):
    """The stream and day views, writing their pages both ways: (path, written, rendered)."""
    compared = []

    def both_ways(write, template):
        def both(request, context):
            written = write(request, context)
            rendered = render_to_string(template, context, request)
            compared.append((request.get_full_path(), written, rendered))
            return written

        return both

    monkeypatch.setattr(
        stream_views, "stream_page_html", both_ways(stream_page_html, "feed/stream.html")
    )
    monkeypatch.setattr(stream_views, "day_page_html", both_ways(day_page_html, "feed/day.html"))
    return compared


@pytest.fixture
def desk(clock):
    lab = make_source(name='Lab & "Co" <x>', slug="lab", handle="@lab")
    press = make_source(name="新闻社", slug="press")
    tags = [("agents", "Agents <&>"), ("大模型", "大模型")]
    for n in range(7):
        make_item(
            source=lab if n % 2 else press,
            title=f"Item {n} & <i>{n}</i>",
            summary="A summary with \"quotes\" & 'apostrophes'",
            kind="paper" if n % 3 == 0 else "blog",
            category="model" if n % 2 else "product",
            status="featured" if n == 4 else "published",
            published_at=JUNE - datetime.timedelta(hours=9 * n),
            tags=[make_tag(slug, name) for slug, name in tags[: n % 3]],
        )


@pytest.mark.parametrize("prefix", ["", "/en"])
def test_every_stream_page_is_the_templates_page(client, desk, pages_compared, prefix):
    for page in PAGES:
        response = client.get(prefix + page)
        assert response.status_code == 200, page

    assert [path for path, _, _ in pages_compared] == [prefix + page for page in PAGES]
    for path, written, rendered in pages_compared:
        assert written == rendered, path


@pytest.mark.parametrize("prefix", ["", "/en"])
def test_paged_pages_are_the_templates_pages(client, desk, pages_compared, settings, prefix):
    settings.AITOP_STREAM_PAGE_ITEMS = 3
    html = client.get(prefix + "/?kind=blog").text
    older = re.search(r'<link rel="next" href="([^"]+)">', html).group(1)

    second = client.get(older.replace("&amp;", "&"))

    assert second.status_code == 200
    assert 'class="pager-older"' in html
    # The second page links back to the latest items, and holds other cards than the first.
    assert re.search(r'<nav class="pager"[^>]*>\s*<a href="[^"]*kind=blog">', second.text)
    assert not set(_cards(html)) & set(_cards(second.text))
    assert len(pages_compared) == 2
    for path, written, rendered in pages_compared:
        assert written == rendered, path


@pytest.mark.parametrize("prefix", ["", "/en"])
def test_an_empty_desk_is_the_templates_empty_page(client, clock, pages_compared, prefix):
    assert client.get(prefix + "/").status_code == 200
    assert client.get(prefix + "/?kind=paper").status_code == 200

    for path, written, rendered in pages_compared:
        assert written == rendered, path
    assert 'class="empty"' in pages_compared[0][1]


# Days with items (the newest, one in between, the oldest), a day without, and a
# day of another year, each unfiltered, filtered and with values to escape.
DAYS = ["2026-06-18", "2026-06-17", "2026-06-16", "2026-06-10", "2025-12-31"]
DAY_FILTERS = ["", "?kind=blog", "?tag=agents&q=" + quote("<&\"'>"), "?featured=1&source=lab"]


@pytest.mark.parametrize("prefix", ["", "/en"])
def test_every_day_page_is_the_templates_page(client, desk, pages_compared, prefix):
    paths = [f"{prefix}/days/{day}/{filters}" for day in DAYS for filters in DAY_FILTERS]
    for path in paths:
        assert client.get(path).status_code == 200, path

    assert [path for path, _, _ in pages_compared] == paths
    for path, written, rendered in pages_compared:
        assert written == rendered, path
    # The pages around a day link to both neighbours, and a full day shows its cards.
    assert 'class="pager-older-day"' in pages_compared[4][1]
    assert "← " in pages_compared[4][1]
    assert 'id="item-' in pages_compared[0][1]


@pytest.mark.parametrize("prefix", ["", "/en"])
def test_a_paged_day_is_the_templates_page(client, desk, pages_compared, settings, prefix):
    settings.AITOP_STREAM_PAGE_ITEMS = 1
    html = client.get(f"{prefix}/days/2026-06-17/").text
    older = re.search(r'class="pager-older" href="([^"]+)"', html).group(1)

    assert client.get(older.replace("&amp;", "&")).status_code == 200

    first, second = (written for _, written, _ in pages_compared)
    assert "day-continues" in first
    # The second page's hidden heading says the day goes on from the page before.
    headings = [
        re.search(r'<h2 class="visually-hidden"[^>]*>([^<]+)</h2>', page).group(1)
        for page in (first, second)
    ]
    assert headings[1].startswith(headings[0] + " ") and headings[1] != headings[0]
    for path, written, rendered in pages_compared:
        assert written == rendered, path


def test_the_page_escapes_what_readers_and_sources_wrote(client, desk):
    html = client.get("/?q=" + quote('<script>alert("x")</script>')).text

    assert "<script>" not in html
    assert 'value="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"' in html
    # The chip and the title say what was searched, escaped.
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; · " in html


def test_the_stream_serves_the_written_page(client, desk):
    response = client.get("/en/?tag=agents")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/html; charset=utf-8"
    html = response.text
    assert html.startswith('<!doctype html>\n\n<html lang="en">')
    assert '<link rel="alternate" hreflang="zh-hans" href="http://testserver/?tag=agents">' in html
    assert '<h2 id="facets-heading">Tags in this view</h2>' in html
    assert html.endswith("</html>\n")


def _cards(html: str) -> list[str]:
    return re.findall(r'id="item-(\d+)"', html)
