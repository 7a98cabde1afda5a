"""The daily brief: the day's top stories by heat, one card per story, pins and drops, feeds."""

import datetime
import json
import re

import pytest

from feed import freshness
from stories.daily import brief_choose
from stories.membership import item_match
from stories.models import BriefChoice
from tests.conftest import SHANGHAI
from tests.factories import make_item, make_source, make_user
from tests.feed.test_query_counts import G

pytestmark = pytest.mark.django_db
DAY = "/daily/2026-06-19/"


def at(hour: int, day: int = 19) -> datetime.datetime:
    return datetime.datetime(2026, 6, day, hour, tzinfo=SHANGHAI)


def card_titles(html: str) -> list[str]:
    return re.findall(r'<h3 class="item-title"><a [^>]*>(.*?)</a></h3>', html)


@pytest.fixture
def day(clock, settings):
    settings.AITOP_DAILY_BRIEF_SIZE = 3
    lab, wire = make_source(name="Lab", weight=90), make_source(name="Wire", weight=40)
    lead = make_item(source=lab, title="Introducing Claude Opus 4.5", heat=70, published_at=at(8))
    copy = make_item(
        source=wire, title="Anthropic 发布 Claude Opus 4.5", heat=65, published_at=at(9)
    )
    item_match(item=lead)
    item_match(item=copy)
    others = [
        make_item(title=f"Story {heat}", heat=heat, published_at=at(10)) for heat in (50, 40, 30)
    ]
    make_item(title="Draft", status="draft", heat=100)
    make_item(title="Other day", heat=99, published_at=at(10, day=18))
    return lead, copy, others


def test_the_brief_shows_the_days_hottest_stories_one_card_each_with_sources(client, day):
    html = client.get(DAY).text

    assert card_titles(html) == ["Introducing Claude Opus 4.5", "Story 50", "Story 40"]
    assert "Wire</a>: <a" in html and "Anthropic 发布 Claude Opus 4.5" in html


def test_editors_pin_a_story_in_and_drop_another_with_all_its_sources(client, day):
    lead, _copy, others = day
    editor = make_user(perms=["stories.add_briefchoice"])
    brief_choose(day=datetime.date(2026, 6, 19), item=others[2], choice="pin", by=editor)
    brief_choose(day=datetime.date(2026, 6, 19), item=lead, choice="drop", by=editor)

    assert card_titles(client.get(DAY).text) == ["Story 30", "Story 50", "Story 40"]


def test_without_the_permission_the_brief_stays_as_it_is(day):
    from editorial.errors import NotPermitted

    with pytest.raises(NotPermitted):
        brief_choose(day=datetime.date(2026, 6, 19), item=day[0], choice="drop", by=make_user())
    assert not BriefChoice.objects.exists()


def test_the_brief_as_rss_atom_and_json_feed(client, day):
    rss = client.get(f"{DAY}feed.xml")
    atom = client.get(f"{DAY}feed.atom")
    feed = client.get(f"{DAY}feed.json")

    assert rss["Content-Type"].startswith("application/rss+xml")
    assert re.findall(r"<item><title>(.*?)</title>", rss.text) == [
        "Introducing Claude Opus 4.5",
        "Story 50",
        "Story 40",
    ]
    assert atom["Content-Type"].startswith("application/atom+xml")
    assert atom.text.count("<entry>") == 3
    body = feed.json()
    assert [entry["title"] for entry in body["items"]] == [
        "Introducing Claude Opus 4.5",
        "Story 50",
        "Story 40",
    ]
    assert body["items"][0]["_aitop"]["story"] == [
        {"title": "Anthropic 发布 Claude Opus 4.5", "url": day[1].url, "source": "Wire"}
    ]
    assert "Draft" not in json.dumps(body, ensure_ascii=False)


def test_the_briefs_feeds_name_their_language(client, day):
    # RSS's <language> and Atom's xml:lang were the repr of a method.
    rss = client.get(f"{DAY}feed.xml").text
    atom = client.get(f"{DAY}feed.atom").text

    assert "<language>zh-hans</language>" in rss
    assert '<feed xml:lang="zh-hans"' in atom
    assert "bound method" not in rss + atom


def test_each_day_heading_links_to_its_brief(client, day):
    assert '<a href="/daily/2026-06-19/">' in client.get("/").text


def test_the_brief_runs_a_fixed_number_of_queries(client, day, django_assert_max_num_queries):
    freshness.generation_current()  # the writes' bump lands first, as after a commit
    # the generation (unless cached), the stories, their tags, their sources
    with django_assert_max_num_queries(G + 3):
        client.get(DAY)


def test_an_impossible_date_is_a_404(client, clock):
    assert client.get("/daily/2026-02-30/").status_code == 404
