"""The reader filters (feed.filters.ItemFilter): alone, combined, and as the stream shows them."""

import datetime
import re
from html import unescape

import pytest
from django.http import QueryDict
from django.utils import translation

from feed.filters import SEARCH_MAX_LENGTH, ItemFilter
from feed.models import Item
from tests.conftest import SHANGHAI
from tests.factories import make_item, make_source, make_tag

pytestmark = pytest.mark.django_db


def at(day: int, hour: int = 9) -> datetime.datetime:
    return datetime.datetime(2026, 6, day, hour, tzinfo=SHANGHAI)


@pytest.fixture
def desk(clock):
    """Five visible items whose filters are known, and invisible twins of the first."""
    arxiv = make_source(name="arXiv cs.LG", slug="arxiv-cs-lg", kind="paper")
    lumen = make_source(name="Lumen Lab", slug="lumen-lab", kind="blog")
    mira = make_source(name="Mira Okafor", slug="mira", kind="tweet", handle="@mira")
    tide = make_source(name="潮汐日报", slug="tidewater", kind="news")
    make_item(
        title="Ring all-reduce 训练加速",
        source=arxiv,
        category="paper",
        status="featured",
        tags=["分布式训练", "量化"],
        authors="Ada Moreau",
        published_at=at(19),
    )
    make_item(
        title="Lumen-3 release notes",
        source=lumen,
        category="model",
        tags=["分布式训练"],
        summary="Long-context TRAINING got cheaper.",
        published_at=at(18),
    )
    make_item(
        title="A quantisation tip",
        source=mira,
        category="tip",
        status="featured",
        tags=["量化"],
        recommendation="适合在单卡上做训练的人。",
        published_at=at(17),
    )
    make_item(title="Chip export rules", source=tide, category="industry", published_at=at(12))
    make_item(
        title="Speculative decoding, again",
        source=arxiv,
        category="paper",
        tags=["推理"],
        authors="Lin Qiao",
        published_at=at(10),
    )
    # Invisible items that match every filter: none may ever come back.
    for status, published_at in [("draft", None), ("rejected", None), ("featured", at(21))]:
        make_item(
            title=f"Hidden {status} 训练",
            source=arxiv,
            category="paper",
            status=status,
            tags=["分布式训练", "量化"],
            authors="Ada Moreau",
            published_at=published_at,
        )


def filtered_titles(querystring: str) -> set[str]:
    filterset = ItemFilter(QueryDict(querystring), queryset=Item.objects.visible())
    assert filterset.is_valid(), filterset.errors
    return set(filterset.qs.values_list("title", flat=True))


def page_titles(client, url: str) -> list[str]:
    html = client.get(url).text
    return [unescape(t) for t in re.findall(r'class="item-title"><a [^>]*>([^<]+)</a>', html)]


RING, LUMEN, TIP, CHIP, SPEC = (
    "Ring all-reduce 训练加速",
    "Lumen-3 release notes",
    "A quantisation tip",
    "Chip export rules",
    "Speculative decoding, again",
)

CASES = [
    ("", {RING, LUMEN, TIP, CHIP, SPEC}),
    ("kind=paper", {RING, SPEC}),
    ("kind=blog", {LUMEN}),
    ("kind=tweet", {TIP}),
    ("kind=news", {CHIP}),
    ("category=model", {LUMEN}),
    ("category=tip", {TIP}),
    ("category=industry", {CHIP}),
    ("tag=分布式训练", {RING, LUMEN}),
    ("tag=量化", {RING, TIP}),
    ("tag=分布式训练&tag=量化", {RING}),
    ("tag=推理&tag=量化", set()),
    ("source=arxiv-cs-lg", {RING, SPEC}),
    ("featured=1", {RING, TIP}),
    ("featured=true", {RING, TIP}),
    ("featured=0", {LUMEN, CHIP, SPEC}),
    ("q=训练", {RING, TIP}),
    ("q=training", {LUMEN}),
    ("q=lin qiao", {SPEC}),
    ("q=ada", {RING}),
    ("since=2026-06-17", {RING, LUMEN, TIP}),
    ("until=2026-06-12", {CHIP, SPEC}),
    ("since=2026-06-12&until=2026-06-17", {TIP, CHIP}),
    ("since=2026-06-18T09:00:00%2B08:00", {RING, LUMEN}),
    ("kind=paper&featured=1", {RING}),
    ("kind=paper&tag=推理", {SPEC}),
    ("category=paper&q=训练", {RING}),
    ("source=arxiv-cs-lg&tag=分布式训练&featured=1&q=ring", {RING}),
    ("tag=量化&kind=tweet&category=tip&since=2026-06-17&until=2026-06-17", {TIP}),
    ("kind=&category=&featured=&q=", {RING, LUMEN, TIP, CHIP, SPEC}),
]


@pytest.mark.parametrize(("querystring", "expected"), CASES)
def test_each_filter_alone_and_combined_narrows_the_visible_items(desk, querystring, expected):
    assert filtered_titles(querystring) == expected


@pytest.mark.parametrize(("querystring", "expected"), CASES)
def test_the_stream_shows_exactly_the_filtered_items_newest_first(
    client, desk, querystring, expected
):
    titles = page_titles(client, f"/?{querystring}")

    order = [RING, LUMEN, TIP, CHIP, SPEC]
    assert titles == [title for title in order if title in expected]


def test_without_a_queryset_the_filter_starts_from_the_visible_items(desk):
    filterset = ItemFilter(QueryDict("tag=分布式训练"))

    assert filterset.is_valid()
    assert set(filterset.qs.values_list("title", flat=True)) == {RING, LUMEN}


def test_a_search_matches_a_chinese_substring_inside_a_longer_word(desk):
    # 训 alone is inside 训练 (in a title and in a "why" line).
    assert filtered_titles("q=训") == {RING, TIP}


def test_search_words_must_all_match(desk):
    assert filtered_titles("q=ring 训练") == {RING}
    assert filtered_titles("q=ring quantisation") == set()


def test_an_over_long_search_is_cut_not_refused(desk):
    filterset = ItemFilter(QueryDict(f"q={'训练' * 300}"))

    assert filterset.is_valid()
    assert filterset.form.cleaned_data["q"] == ("训练" * 300)[:SEARCH_MAX_LENGTH]


@pytest.mark.parametrize(
    ("querystring", "parameter"),
    [
        ("kind=podcast", "kind"),
        ("category=gossip", "category"),
        ("featured=maybe", "featured"),
        ("since=yesterday", "since"),
        ("until=2026-02-30", "until"),
        ("since=0001-01-01", "since"),
        ("tag=" + "&tag=".join(f"t{n}" for n in range(11)), "tag"),
        ("source=a%00b", "source"),
    ],
)
def test_an_unreadable_value_makes_the_filter_invalid_naming_the_parameter(querystring, parameter):
    filterset = ItemFilter(QueryDict(querystring))

    assert not filterset.is_valid()
    assert list(filterset.errors) == [parameter]


def test_filtersets_one_after_another_keep_nothing_of_each_other(desk):
    # Every filterset shares the class's form fields (feed/filters.py): what one
    # request read or refused must not reach the next.
    refused = ItemFilter(QueryDict("kind=podcast&tag=分布式训练&q=ring"))
    assert not refused.is_valid()

    kept = ItemFilter(QueryDict("category=model"))
    assert kept.is_valid()
    assert kept.errors == {}
    assert kept.form.cleaned_data["tag"] == []
    assert kept.form.cleaned_data["q"] == ""
    assert set(kept.qs.values_list("title", flat=True)) == {LUMEN}

    again = ItemFilter(QueryDict("kind=podcast"))
    assert not again.is_valid()
    assert list(again.errors) == ["kind"]


def test_each_filterset_has_filters_of_its_own(desk):
    first, second = ItemFilter(QueryDict("tag=量化")), ItemFilter(QueryDict("tag=推理"))

    assert first.filters["tag"] is not second.filters["tag"]
    assert first.filters["tag"].parent is first
    assert second.filters["tag"].parent is second
    assert set(first.qs.values_list("title", flat=True)) == {RING, TIP}
    assert set(second.qs.values_list("title", flat=True)) == {SPEC}


def test_a_refusal_speaks_the_language_of_its_own_request():
    with translation.override("en"):
        english = ItemFilter(QueryDict("kind=podcast"))
        assert not english.is_valid()
        english_message = english.errors["kind"][0]
    with translation.override("zh-hans"):
        chinese = ItemFilter(QueryDict("kind=podcast"))
        assert not chinese.is_valid()
        chinese_message = chinese.errors["kind"][0]

    assert english_message == "Select a valid choice. podcast is not one of the available choices."
    assert chinese_message.startswith("选择一个有效的选项")


def test_tabs_switch_one_filter_and_keep_the_others(client, desk):
    html = client.get("/?kind=paper&tag=分布式训练&featured=1&q=ring").text
    tabs = dict(
        re.findall(r'<li><a href="([^"]+)"(?: aria-current="page")?>([^<]+)</a></li>', html)
    )
    by_label = {label: unescape(href) for href, label in tabs.items()}

    tag = "分布式训练"
    assert by_label["博客"] == f"/?kind=blog&tag={tag}&featured=1&q=ring"
    assert by_label["模型"] == f"/?kind=paper&category=model&tag={tag}&featured=1&q=ring"
    assert 'aria-current="page">论文</a>' in html


def test_removing_one_tag_chip_keeps_the_other_tags_and_filters(client, desk):
    html = client.get("/?tag=分布式训练&tag=量化&kind=paper").text
    removers = {
        unescape(label): unescape(href)
        for label, href in re.findall(
            r'<li class="chip chip--tag">标签：([^<]+)<a class="chip-remove" href="([^"]+)"', html
        )
    }

    assert removers == {
        "分布式训练": "/?kind=paper&tag=量化",
        "量化": "/?kind=paper&tag=分布式训练",
    }
    # Following the remover shows the stream under the remaining filters.
    assert page_titles(client, removers["分布式训练"]) == [RING]


def test_every_active_filter_gets_a_chip_that_removes_just_it(client, desk):
    html = client.get("/?source=arxiv-cs-lg&featured=1&q=ring&tag=量化").text
    chips = {
        re.sub(r"<[^>]+>", "", unescape(label)): unescape(href)
        for label, href in re.findall(
            r'<li class="chip chip--\w+">(.*?)<a class="chip-remove" href="([^"]+)"', html
        )
    }

    assert chips == {
        "标签：量化": "/?source=arxiv-cs-lg&featured=1&q=ring",
        "来源：arXiv cs.LG": "/?tag=量化&featured=1&q=ring",
        "只看精选": "/?tag=量化&source=arxiv-cs-lg&q=ring",
        "搜索：ring": "/?tag=量化&source=arxiv-cs-lg&featured=1",
    }


def _chip_labels(html: str) -> set[str]:
    return {
        unescape(re.sub(r"<[^>]+>", "", label))
        for label in re.findall(r'<li class="chip chip--\w+">(.*?)<a class="chip-remove"', html)
    }


@pytest.mark.parametrize("path", ["/", "/days/2026-06-19/"])
def test_chips_name_the_tag_and_source_whether_or_not_the_page_has_cards(client, clock, path):
    # The names come from the page's first card when there is one, from the database when not.
    tag = make_tag("big-models", "Big <Models>")
    item = make_item(source=make_source(name="Lumen & Co", slug="lumen"), published_at=at(19))
    item.tags.add(tag)
    filters = "?tag=big-models&source=lumen"

    with_cards = client.get(path + filters).text
    without_cards = client.get(path + filters + "&kind=tweet").text

    assert "Item" in with_cards and 'id="item-' in with_cards
    assert 'id="item-' not in without_cards
    for html in (with_cards, without_cards):
        assert _chip_labels(html) == {"标签：Big <Models>", "来源：Lumen & Co"}


def test_a_feeds_title_names_its_tag_and_source_whether_or_not_it_has_entries(client, clock):
    tag = make_tag("big-models", "Big Models")
    item = make_item(source=make_source(name="Lumen Co", slug="lumen"), published_at=at(19))
    item.tags.add(tag)

    full = client.get("/en/feed.json?tag=big-models&source=lumen").json()
    empty = client.get("/en/feed.json?tag=big-models&source=lumen&kind=tweet").json()

    assert len(full["items"]) == 1 and empty["items"] == []
    assert full["title"] == "AITOP · Big Models · Lumen Co"
    assert empty["title"] == "AITOP · Tweet · Big Models · Lumen Co"


def test_the_search_form_keeps_the_other_filters(client, desk):
    html = client.get("/?kind=paper&tag=分布式训练&featured=1").text
    form = html[
        html.index('<form class="search"') : html.index("</form>", html.index('class="search"'))
    ]

    assert '<input type="hidden" name="kind" value="paper">' in form
    assert '<input type="hidden" name="tag" value="分布式训练">' in form
    assert '<input type="hidden" name="featured" value="1">' in form
