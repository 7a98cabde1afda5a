"""feed/item_html.py writes exactly the page templates/feed/item_detail.html renders.

Each request goes through the real item view, in both languages; the view's
context is also given to the template, and the two pages must be the same bytes.
"""

import datetime

import pytest
from django.template.loader import render_to_string

import feed.views.items as item_views
from feed.item_html import item_page_html
from stories.membership import item_match
from tests.conftest import SHANGHAI
from tests.factories import make_item, make_source, make_tag

pytestmark = pytest.mark.django_db

LANGUAGES = ["", "/en"]


def at(day: int, hour: int) -> datetime.datetime:
    return datetime.datetime(2026, 6, day, hour, tzinfo=SHANGHAI)


@pytest.fixture
def pages_compared(monkeypatch):
    """The item view, writing its page both ways: (path, written, rendered) of each request."""
    compared = []

    def both(request, context):
        written = item_page_html(request, context)
        rendered = render_to_string("feed/item_detail.html", context, request)
        compared.append((request.get_full_path(), written, rendered))
        return written

    monkeypatch.setattr(item_views, "item_page_html", both)
    return compared


@pytest.fixture
def items(clock):
    """An item with every field (values to escape, a body to clean), one with almost none,
    a story told by three sources, and neighbours sharing tags (related items)."""
    lab = make_source(name='Lab & "Co" <x>', slug="lab-co", handle="@lab<>")
    tags = [make_tag("agents", "Agents <&>"), make_tag("大模型", "大模型")]
    full = make_item(
        source=lab,
        title='A <b>bold</b> "launch" & more',
        summary="Summary with 'quotes' & <tags>",
        recommendation="Why: <because> & so",
        authors="Ada <a@b.c>",
        body=(
            '<p>Kept <strong>text</strong></p><script>alert("x")</script>'
            '<a href="javascript:x">y</a>'
        ),
        status="featured",
        heat=87,
        category="model",
        kind="paper",
        published_at=at(18, 9),
        original_published_at=at(17, 23),
        tags=tags,
    )
    bare = make_item(
        source=make_source(name="Plain", handle=""),
        title="Bare",
        summary="",
        recommendation="",
        authors="",
        body="",
        category="",
        heat=0,
        published_at=at(18, 7),
    )
    for hours in (1, 2, 3):
        make_item(
            title=f"Neighbour {hours}", tags=tags[: hours % 2 + 1], published_at=at(18, hours)
        )
    wire, zh = make_source(name="Wire & Co", weight=50), make_source(name="机器之心", weight=60)
    story = [
        make_item(source=wire, title="Anthropic launches Claude Opus 4.5", published_at=at(19, 9)),
        make_item(source=zh, title="Anthropic 发布 Claude Opus 4.5 <新>", published_at=at(19, 10)),
    ]
    for item in story:
        item_match(item=item)
    return [full, bare, *story]


@pytest.mark.parametrize("prefix", LANGUAGES)
def test_every_item_page_is_the_templates_page(client, items, pages_compared, prefix):
    paths = [prefix + item.get_absolute_url() for item in items]
    for path in paths:
        assert client.get(path).status_code == 200, path

    assert len(pages_compared) == len(items)
    for path, written, rendered in pages_compared:
        assert written == rendered, path
    full, bare, *story = (written for _, written, _ in pages_compared)
    # Each kind of page was there to compare: every field, none, related items, a story.
    assert 'class="item-body"' in full and 'class="related-list"' in full
    assert 'class="item-body"' not in bare and 'class="badge"' not in bare
    assert any('class="coverage-list"' in page for page in story)


def test_the_page_escapes_what_sources_wrote_and_cleans_the_body(client, items):
    html = client.get(items[0].get_absolute_url()).text

    assert "<b>bold</b>" not in html
    assert "A &lt;b&gt;bold&lt;/b&gt; &quot;launch&quot; &amp; more · AITOP</title>" in html
    assert "<script>" not in html and "javascript:" not in html
    assert "<p>Kept <strong>text</strong></p>" in html
    assert '<span class="item-handle">' not in html  # authors win over the handle
    assert '<meta name="twitter:creator" content="@lab&lt;&gt;">' in html


def test_the_item_page_serves_the_written_page(client, items):
    response = client.get("/en" + items[0].get_absolute_url())

    assert response.status_code == 200
    assert response["Content-Type"] == "text/html; charset=utf-8"
    html = response.text
    assert html.startswith('<!doctype html>\n\n<html lang="en">')
    assert '<meta property="og:locale" content="en_US">' in html
    assert '<a href="/en/?tag=%E5%A4%A7%E6%A8%A1%E5%9E%8B">' not in html
    assert '<a href="/en/?tag=大模型">大模型</a>' in html
    assert html.endswith("</html>\n")
