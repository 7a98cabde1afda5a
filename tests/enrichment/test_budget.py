"""The daily token budget: once it is spent the rest wait, nothing fails, and tomorrow they go."""

import datetime
from decimal import Decimal

import pytest

from enrichment.budget import budget_reserve, spend_today
from enrichment.models import Enrichment, UsageDay
from enrichment.services import items_enrich, items_pending
from feed.models import Item
from tests.enrichment.conftest import GOOD
from tests.factories import make_item

pytestmark = pytest.mark.django_db


def drafts(n: int) -> list[Item]:
    return [
        make_item(
            recommendation="",
            title=f"Draft {i}",
            summary="Some feed text.",
            status=Item.Status.DRAFT,
        )
        for i in range(n)
    ]


def test_when_the_budget_is_spent_the_rest_wait_and_go_the_next_day(
    chat, backend, ai_settings, clock
):
    ai_settings.AITOP_AI_DAILY_TOKEN_BUDGET = 3000
    first, second, third = drafts(3)
    chat.answer(GOOD, tokens_in=2000, tokens_out=500)

    summary = items_enrich(items=[first, second, third], backend=backend, now=clock.now)

    assert (summary.done, summary.waiting, summary.failed) == (1, 2, 0)
    assert len(chat.requests) == 1
    states = dict(Enrichment.objects.values_list("item_id", "state"))
    assert states == {first.pk: "done", second.pk: "waiting", third.pk: "waiting"}
    for item in (second, third):
        item.refresh_from_db()
        assert item.summary == "Some feed text."
    day = UsageDay.objects.get()
    assert (day.tokens_in, day.tokens_out, day.tokens_reserved, day.calls) == (2000, 500, 0, 1)
    assert sorted(items_pending().values_list("pk", flat=True)) == [second.pk, third.pk]

    clock.move(datetime.timedelta(days=1))
    chat.answer(GOOD, tokens_in=200, tokens_out=100)
    chat.answer(GOOD, tokens_in=200, tokens_out=100)
    tomorrow = items_enrich(items=items_pending(), backend=backend, now=clock.now)

    assert (tomorrow.done, tomorrow.waiting, tomorrow.failed) == (2, 0, 0)
    assert list(items_pending()) == []


def test_a_reservation_that_does_not_fit_changes_nothing(ai_settings, clock):
    ai_settings.AITOP_AI_DAILY_TOKEN_BUDGET = 1000

    assert budget_reserve(tokens=600, now=clock.now) is True
    assert budget_reserve(tokens=600, now=clock.now) is False
    assert budget_reserve(tokens=400, now=clock.now) is True

    assert UsageDay.objects.get().tokens_reserved == 1000


def test_todays_spend_is_counted_in_the_sites_time_zone(chat, backend, ai_settings, clock):
    item = make_item(recommendation="", status=Item.Status.DRAFT, summary="Text.")
    chat.answer(GOOD, tokens_in=1000, tokens_out=250)
    items_enrich(items=[item], backend=backend, now=clock.now)

    spend = spend_today(now=clock.now)

    assert (spend.day, spend.tokens, spend.budget, spend.calls, spend.cost) == (
        datetime.date(2026, 6, 20),
        1250,
        100_000,
        1,
        Decimal("0.004000"),
    )
    assert spend.percent == 1
    # Shanghai's next day starts at 16:00 UTC.
    assert spend_today(now=clock.now + datetime.timedelta(hours=12)).tokens == 0
