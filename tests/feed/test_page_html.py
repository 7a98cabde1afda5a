"""feed/page_html.py writes exactly the page templates/feed/stream.html renders, in both languages.

Each request below goes through the real stream view; the view's context is
also given to the template, and the two pages must be the same bytes.
"""

import datetime
import re
from urllib.parse import quote

import pytest
from django.template.loader import render_to_string

import feed.views.stream as stream_views
from feed.page_html import stream_page_html
from tests.factories import make_item, make_source

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
    """The stream view, writing its page both ways: (path, written, rendered) of each request."""
    compared = []

    def both(request, context):
        written = stream_page_html(request, context)
        rendered = render_to_string("feed/stream.html", context, request)
        compared.append((request.get_full_path(), written, rendered))
        return written

    monkeypatch.setattr(stream_views, "stream_page_html", both)
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
            tags=[_tag(slug, name) for slug, name in tags[: n % 3]],
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


def _tag(slug: str, name: str):
    from taggit.models import Tag

    return Tag.objects.get_or_create(slug=slug, defaults={"name": name})[0]
