"""feed/card_html.py writes exactly what feed/partials/item_card.html renders, in both languages."""

import datetime
from urllib.parse import parse_qsl

import pytest
from django.template.loader import render_to_string
from django.utils import translation

from feed.card_html import CardWords, card_html
from feed.cards import CARD_TEMPLATE, card_chips, cards_render
from feed.links import NO_FILTERS, StreamQuery
from feed.models import Item
from tests.conftest import SHANGHAI
from tests.factories import make_item, make_source

pytestmark = pytest.mark.django_db


def _varied_items() -> list[Item]:
    """Cards with and without each optional part, and text that needs escaping."""
    lab = make_source(name="Lumen & <Lab>", slug="lumen-lab", handle="@lumen", kind="blog")
    quiet = make_source(name="静默 “来源”", slug="静默来源", handle="   ", kind="tweet")
    items = [
        make_item(
            source=lab,
            title="DeepSeek-V4 发布：长上下文 & <MoE> \"quoted\" 'single'",
            summary="Summary with <b>tags</b> & ampersands.",
            recommendation="值得一读 — because it's new.",
            authors="María Garcés, 李雷",
            category="model",
            heat=100,
            status="featured",
            published_at=datetime.datetime(2026, 6, 20, 9, 5, 7, 123456, tzinfo=SHANGHAI),
            tags=["长上下文", "agents", "C++ & Rust", "a/b?c=d"],
        ),
        make_item(
            source=lab,
            title="Only a title 🚀 ¿qué? ²",
            summary="",
            recommendation="",
            category="",
            heat=0,
            published_at=datetime.datetime(2026, 6, 19, 23, 59, tzinfo=datetime.UTC),
        ),
        make_item(
            source=quiet,
            title="   ",
            summary="   ",
            recommendation=" \n ",
            category="paper",
            heat=7,
            tags=["量化"],
        ),
        make_item(source=quiet, title="A draft", status="draft", published_at=None, tags=["x"]),
    ]
    fetched = list(Item.objects.filter(pk__in=[i.pk for i in items]).for_cards().order_by("pk"))
    # A story's other sources, as stories/site.py adds them to a card.
    fetched[0].coverage = [fetched[1], fetched[2]]
    fetched[1].coverage = [fetched[0]]
    return fetched


QUERIES = [
    ("/", NO_FILTERS),
    ("/", StreamQuery(tags=("agents",), category="model", source="lumen-lab", q="a b&c")),
    ("/days/2026-06-20/", StreamQuery(kind="paper", tags=("量化",), source="静默来源")),
]


@pytest.mark.parametrize("language", ["zh-hans", "en"])
@pytest.mark.parametrize(("base", "query"), QUERIES)
def test_the_python_card_is_the_template_card_byte_for_byte(clock, language, base, query):
    items = _varied_items()
    translation.activate(language)
    base = ("/en" if language == "en" else "") + base
    words = CardWords.current()

    for item in items:
        chips = card_chips(item, query=query, base=base)
        expected = render_to_string(CARD_TEMPLATE, {"item": item, **chips})

        assert card_html(item, words=words, **chips) == expected


def test_cards_render_writes_the_template_cards_in_order(clock):
    items = _varied_items()
    translation.activate("en")

    cards = cards_render(items, query=NO_FILTERS, base="/en/")

    assert cards == [
        render_to_string(
            CARD_TEMPLATE, {"item": item, **card_chips(item, query=NO_FILTERS, base="/en/")}
        )
        for item in items
    ]
    assert 'href="/en/go/' in cards[0] and "Featured" in cards[0] and "100°" in cards[0]
    # The machine-readable time says the second, not the stored microseconds.
    assert '<time datetime="2026-06-20T09:05:07+08:00">09:05</time>' in cards[0]


def test_a_tag_chip_is_a_plain_list_entry_and_the_active_one_says_so(clock):
    items = _varied_items()

    card = cards_render(items[:1], query=StreamQuery(tags=("agents",)), base="/")[0]

    assert '<li class="tag--category"><a href="/?category=model&amp;tag=agents">' in card
    assert '<li><a href="/?tag=agents" aria-current="true">agents</a></li>' in card
    assert '<li><a href="/?tag=%E9%95%BF' not in card
    assert '<li><a href="/?tag=agents&amp;tag=长上下文">长上下文</a></li>' in card


@pytest.mark.parametrize(("base", "query"), QUERIES)
def test_each_chip_links_to_the_page_with_its_filter_put_in(clock, base, query):
    items = _varied_items()

    for item in items:
        chips = card_chips(item, query=query, base=base)
        expected = [
            (chip, query.with_tag(tag.slug))
            for chip, tag in zip(chips["tag_chips"], item.tags_sorted(), strict=True)
        ]
        expected.append((chips["source_chip"], query.replace(source=item.source.slug)))
        if item.category:
            expected.append((chips["category_chip"], query.replace(category=item.category)))

        for chip, changed in expected:
            path, _, querystring = chip.url.partition("?")
            assert path == base
            assert parse_qsl(querystring) == changed.params()
