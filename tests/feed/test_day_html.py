"""feed/day_html.py writes exactly what feed/partials/day.html renders, in both languages."""

import dataclasses
import datetime
import re

import pytest
from django.template.loader import render_to_string
from django.test import RequestFactory
from django.utils import translation
from django.utils.safestring import mark_safe

from feed.day_html import days_html
from feed.links import StreamQuery
from feed.pages import stream_context
from feed.paging import group_by_day
from tests.factories import make_item

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("language", ["zh-hans", "en"])
@pytest.mark.parametrize("continued", [False, True])
@pytest.mark.parametrize("continues", [False, True])
def test_the_python_day_is_the_template_day_byte_for_byte(clock, language, continued, continues):
    june = datetime.datetime(2026, 6, 18, 9, tzinfo=datetime.UTC)
    make_item(title="A & <b>", published_at=june)
    make_item(title="第二条", published_at=june + datetime.timedelta(hours=1))
    (day,) = group_by_day(list(_visible()))
    days = [dataclasses.replace(day, continued=continued, continues=continues)]
    request = RequestFactory().get("/")
    # A filter whose value needs escaping in the heading's link.
    query = StreamQuery(q="a&b <c>", kind="blog")

    with translation.override(language):
        context = stream_context(request=request, days=days, query=query)
        (day,) = context["days"]
        expected = render_to_string("feed/partials/day.html", {"day": day, "query": query})
        written = days_html([day])

    assert written == expected
    assert "&amp;" in written  # the link's query, escaped
    assert (continued, continues) == (
        "day-continued" in written,
        "day-continues" in written,
    )


def test_the_stream_shows_each_day_with_its_heading_link_and_cards(client, clock):
    june = datetime.datetime(2026, 6, 18, 9, tzinfo=datetime.UTC)
    for days_back in range(3):
        make_item(title=f"Item {days_back}", published_at=june - datetime.timedelta(days=days_back))

    html = client.get("/?kind=blog").text

    sections = re.findall(
        r'<section class="day" aria-labelledby="day-([\d-]+)">(.*?)</section>', html, re.S
    )
    assert [date for date, _ in sections] == ["2026-06-18", "2026-06-17", "2026-06-16"]
    for (date, body), title in zip(sections, ["Item 0", "Item 1", "Item 2"], strict=True):
        assert f'<a href="/days/{date}/?kind=blog">' in body
        assert f'<a href="/daily/{date}/">' in body
        assert title in body


def test_several_days_in_order_each_once():
    days = [
        _day(datetime.date(2026, 6, 19), cards=["<article>one</article>"]),
        _day(datetime.date(2026, 6, 18), cards=["<article>two</article>", "<article>3</article>"]),
    ]

    with translation.override("en"):
        written = days_html(days)

    assert re.findall(r'id="day-([\d-]+)"', written) == ["2026-06-19", "2026-06-18"]
    assert re.findall(r"<article>(\w+)</article>", written) == ["one", "two", "3"]


def _visible():
    from feed.models import Item

    return Item.objects.visible().order_by("-published_at", "-id")


def _day(date: datetime.date, *, cards: list[str]):
    from feed.pages import DayCards

    return DayCards(
        date=date,
        cards=[mark_safe(card) for card in cards],  # noqa: S308 - test markup
        items=[],
        heading=date.isoformat(),
        url=f"/days/{date}/",
        brief_url=f"/daily/{date}/",
    )
