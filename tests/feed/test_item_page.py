"""An item's page: every field, the original link, related items and the meta for sharing."""

import datetime
import re
from html import unescape

import pytest
from django.test import RequestFactory
from django.utils import translation

from feed.pages import item_page_context
from tests.conftest import SHANGHAI
from tests.factories import make_item, make_source

pytestmark = pytest.mark.django_db


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))


def meta(html: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for key, value in re.findall(r'<meta (?:property|name)="([^"]+)" content="([^"]*)">', html):
        found.setdefault(key, []).append(unescape(value))
    return found


@pytest.fixture
def paper(clock):
    source = make_source(name="arXiv cs.LG", slug="arxiv-cs-lg", kind="paper", handle="")
    return make_item(
        source=source,
        title="Quantum ring all-reduce",
        url="https://arxiv.example/abs/2606.01234",
        authors="Ada Moreau, Lin Qiao",
        category="paper",
        status="featured",
        heat=83,
        tags=["分布式训练", "量子通信"],
        summary="Halves the traffic of each ring step.",
        recommendation="Worth a read for anyone who trains across machines.",
        body='<p>Excerpt, <a href="https://x.example/">a link</a>.</p><script>alert(1)</script>',
        published_at=datetime.datetime(2026, 6, 19, 9, 50, tzinfo=SHANGHAI),
        original_published_at=datetime.datetime(2026, 6, 18, 23, 5, tzinfo=SHANGHAI),
    )


def test_the_item_page_shows_every_field(client, paper):
    html = client.get(paper.get_absolute_url()).text
    text = text_of(html)

    assert '<h1 class="item-page-title">Quantum ring all-reduce</h1>' in html
    assert "2026年6月19日 09:50 arXiv cs.LG @ Ada Moreau, Lin Qiao 精选 83°" in text
    assert "Halves the traffic of each ring step." in text
    assert "推荐理由： Worth a read for anyone who trains across machines." in text
    assert "来源 arXiv cs.LG" in text
    assert "作者 Ada Moreau, Lin Qiao" in text
    assert "类型 论文" in text
    assert "分类 论文" in text
    assert "热度 83°" in text
    assert "发布时间 2026年6月19日 09:50" in text
    assert "原文发布时间 2026年6月18日 23:05" in text
    assert "原文地址 https://arxiv.example/abs/2606.01234" in text
    assert '<a href="/?tag=量子通信">量子通信</a>' in html
    assert '<a href="/days/2026-06-19/">6月19日</a>' in html


def test_the_item_body_is_sanitised(client, paper):
    html = client.get(paper.get_absolute_url()).text

    assert '<a href="https://x.example/" rel="noopener nofollow">a link</a>' in html
    assert "<script>" not in html


def test_the_original_link_goes_through_the_counter_with_noopener(client, paper):
    html = client.get(paper.get_absolute_url()).text

    links = re.findall(r'<a [^>]*href="/go/(\d+)/"[^>]*>', html)
    assert links and set(links) == {str(paper.pk)}
    assert all('rel="noopener"' in tag for tag in re.findall(r'<a [^>]*href="/go/[^>]*>', html))


def test_the_item_page_has_canonical_opengraph_and_twitter_meta(client, paper):
    html = client.get(paper.get_absolute_url()).text
    url = f"http://testserver{paper.get_absolute_url()}"

    assert f'<link rel="canonical" href="{url}">' in html
    assert meta(html) == {
        "viewport": ["width=device-width, initial-scale=1"],
        "description": ["Halves the traffic of each ring step."],
        "og:type": ["article"],
        "og:site_name": ["AITOP"],
        "og:title": ["Quantum ring all-reduce"],
        "og:description": ["Halves the traffic of each ring step."],
        "og:url": [url],
        "og:locale": ["zh_CN"],
        "article:published_time": ["2026-06-19T09:50:00+08:00"],
        "article:modified_time": [paper.updated_at.astimezone(SHANGHAI).isoformat()],
        "article:section": ["论文"],
        "article:tag": ["分布式训练", "量子通信"],
        "twitter:card": ["summary"],
        "twitter:title": ["Quantum ring all-reduce"],
        "twitter:description": ["Halves the traffic of each ring step."],
    }


def test_related_items_share_tags_the_most_shared_first_visible_only(client, paper):
    make_item(title="Shares both", tags=["分布式训练", "量子通信"])
    make_item(title="Shares one", tags=["量子通信"])
    make_item(title="Shares none", tags=["烹饪"])
    make_item(title="Draft sharing both", tags=["分布式训练", "量子通信"], status="draft")

    html = client.get(paper.get_absolute_url()).text
    related = html[html.index('<ul class="related-list">') :]

    assert re.findall(r'<a href="/items/\d+/[^"]+">([^<]+)</a>', related) == [
        "Shares both",
        "Shares one",
    ]


@pytest.mark.parametrize(
    "fields",
    [
        {"status": "draft"},
        {"status": "rejected"},
        {"status": "published", "published_at": datetime.datetime(2026, 6, 21, tzinfo=SHANGHAI)},
    ],
)
def test_an_item_readers_cannot_see_is_a_404(client, clock, fields):
    item = make_item(title="Not for readers", **fields)

    response = client.get(f"/items/{item.pk}/not-for-readers/")

    assert response.status_code == 404
    assert "Not for readers" not in response.text
    assert "未找到" in response.text


def test_an_unknown_or_huge_item_id_is_a_404(client):
    assert client.get("/items/999999/x/").status_code == 404
    assert client.get(f"/items/{2**70}/x/").status_code == 404
    assert client.get(f"/go/{2**70}/").status_code == 404


def test_the_context_builder_renders_a_draft_for_a_preview(clock):
    """Editors' preview: a plain function builds the page context for any item."""
    from django.template.loader import render_to_string

    draft = make_item(title="Draft for preview", status="draft", summary="Not out yet.")
    request = RequestFactory().get("/preview/")

    with translation.override("zh-hans"):
        context = item_page_context(request=request, item=draft, related=[])
        html = render_to_string("feed/item_detail.html", context, request=request)

    assert '<h1 class="item-page-title">Draft for preview</h1>' in html
    assert "Not out yet." in html


@pytest.mark.parametrize(
    "title",
    ["GPT-5 发布: what's new?", "!!!", "50% off & more (v2)", "Ünïcode/斜杠 ~tilde~", "  "],
)
@pytest.mark.parametrize("language", ["zh-hans", "en"])
@pytest.mark.parametrize("script_prefix", ["/", "/aitop/"])
def test_an_items_address_is_what_reverse_gives(title, language, script_prefix):
    from django.urls import get_script_prefix, reverse, set_script_prefix

    item = make_item(title=title)
    old_prefix = get_script_prefix()
    set_script_prefix(script_prefix)
    try:
        with translation.override(language):
            expected = reverse("feed:item-detail", kwargs={"pk": item.pk, "slug": item.slug})
            assert item.get_absolute_url() == expected
    finally:
        set_script_prefix(old_prefix)
