"""The daily brief: the day's top stories by heat, one card per story, pins and drops, feeds."""

import datetime
import json
import re

import pytest
from django.contrib.syndication.views import Feed
from django.urls import reverse
from django.utils import feedgenerator, translation
from django.utils.translation import gettext as _

from feed import freshness
from feed.syndication import item_html
from stories.daily import brief_choose, daily_brief
from stories.membership import item_match
from stories.models import BriefChoice
from stories.views import _coverage_html, brief_title
from tests.conftest import SHANGHAI
from tests.factories import make_item, make_source, make_user
from tests.feed.test_feed_xml import DjangosEntries
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


@pytest.mark.parametrize("path", ["", "feed.xml", "feed.atom", "feed.json"])
def test_the_brief_speaks_the_language_of_its_address_alone(client, day, path):
    # The brief's addresses were not counted as public: under /en/ they were a
    # 404, and at / they followed the browser's Accept-Language.
    chinese = client.get(f"{DAY}{path}", headers={"accept-language": "en"})
    english = client.get(f"/en{DAY}{path}", headers={"accept-language": "zh-hans"})

    assert (chinese.status_code, english.status_code) == (200, 200)
    assert (chinese["Content-Language"], english["Content-Language"]) == ("zh-hans", "en")
    for response in (chinese, english):
        assert "Accept-Language" not in response.get("Vary", "")
        assert "Cookie" not in response.get("Vary", "")
    assert "AITOP 每日简报" in chinese.text
    assert "AITOP daily brief" in english.text


class _DjangosDailyFeed(DjangosEntries, Feed):
    """The brief's RSS as django.contrib.syndication wrote it before `feed.feed_xml`."""

    feed_type = feedgenerator.Rss201rev2Feed

    def __call__(self, request, *args, **kwargs):
        self.request = request
        return super().__call__(request, *args, **kwargs)

    def get_object(self, request, day):
        return daily_brief(day=day)

    def title(self, brief):
        return brief_title(brief.day)

    def link(self, brief):
        return reverse("stories:daily", kwargs={"day": brief.day})

    def description(self, brief):
        return _("The day's top AI stories by heat.")

    subtitle = description

    def items(self, brief):
        return brief.items

    def item_description(self, item):
        original = self.request.build_absolute_uri(reverse("feed:go", kwargs={"pk": item.pk}))
        return item_html(item, original_url=original) + _coverage_html(item)


class _DjangosDailyAtom(_DjangosDailyFeed):
    feed_type = feedgenerator.Atom1Feed


@pytest.mark.parametrize("prefix", ["/", "/en/"])
@pytest.mark.parametrize(
    ("path", "reference"), [("feed.xml", _DjangosDailyFeed), ("feed.atom", _DjangosDailyAtom)]
)
def test_the_briefs_feeds_are_what_djangos_feed_view_wrote(client, day, prefix, path, reference):
    response = client.get(f"{prefix}{DAY[1:]}{path}")
    with translation.override(response["Content-Language"]):
        expected = reference()(response.wsgi_request, day=datetime.date(2026, 6, 19))

    assert response.status_code == 200
    assert expected.content.count(b"<item>") + expected.content.count(b"<entry>") == 3
    assert b"Anthropic" in expected.content  # the lead story's other source
    assert response.content == expected.content


def test_each_day_heading_links_to_its_brief(client, day):
    assert '<a href="/daily/2026-06-19/">' in client.get("/").text


def test_the_brief_runs_a_fixed_number_of_queries(client, day, django_assert_max_num_queries):
    freshness.generation_current()  # the writes' bump lands first, as after a commit
    # the generation (unless cached), the stories, their tags, their sources
    with django_assert_max_num_queries(G + 3):
        client.get(DAY)


def test_an_impossible_date_is_a_404(client, clock):
    assert client.get("/daily/2026-02-30/").status_code == 404
