"""The daily token budget: reserve before a call, settle after it, race-safe across workers."""

import dataclasses
import datetime
from decimal import Decimal

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from enrichment.models import UsageDay

MILLION = Decimal(1_000_000)


def usage_day(now: datetime.datetime) -> datetime.date:
    """The budget's day for `now`: the date in the site's time zone."""
    return timezone.localdate(now)


def cost_estimate(*, tokens_in: int, tokens_out: int) -> Decimal:
    """US dollars for a call, from the configured prices per million tokens."""
    price_in = Decimal(str(settings.AITOP_AI_PRICE_INPUT))
    price_out = Decimal(str(settings.AITOP_AI_PRICE_OUTPUT))
    cost = (tokens_in * price_in + tokens_out * price_out) / MILLION
    return cost.quantize(Decimal("0.000001"))


def _row(day: datetime.date) -> None:
    if not UsageDay.objects.filter(day=day).exists():
        try:
            with transaction.atomic():
                UsageDay.objects.create(day=day)
        except IntegrityError:
            pass  # another worker made today's row a moment ago


def budget_reserve(*, tokens: int, now: datetime.datetime) -> bool:
    """Set `tokens` aside from today's budget; False (and nothing set aside) if they do not fit."""
    day = usage_day(now)
    _row(day)
    room = settings.AITOP_AI_DAILY_TOKEN_BUDGET - tokens
    # One conditional UPDATE: two workers can never both take the last tokens.
    return bool(
        UsageDay.objects.filter(day=day)
        .filter(
            tokens_in__lte=room - F("tokens_out") - F("tokens_reserved"),
        )
        .update(tokens_reserved=F("tokens_reserved") + tokens)
    )


def budget_settle(
    *,
    reserved: int,
    tokens_in: int,
    tokens_out: int,
    cost: Decimal,
    now: datetime.datetime,
    called: bool = True,
) -> None:
    """Replace a reservation by what the call really used (nothing, if it never happened)."""
    UsageDay.objects.filter(day=usage_day(now)).update(
        tokens_reserved=F("tokens_reserved") - reserved,
        tokens_in=F("tokens_in") + tokens_in,
        tokens_out=F("tokens_out") + tokens_out,
        cost=F("cost") + cost,
        calls=F("calls") + (1 if called else 0),
    )


@dataclasses.dataclass(frozen=True)
class Spend:
    """Today's spend against the budget, for the dashboard."""

    day: datetime.date
    tokens: int
    budget: int
    cost: Decimal
    calls: int

    @property
    def percent(self) -> int:
        if self.budget <= 0:
            return 100
        return min(100, round(100 * self.tokens / self.budget))


def spend_today(*, now: datetime.datetime | None = None) -> Spend:
    """Tokens, calls and cost of today so far (reservations in flight included)."""
    day = usage_day(now or timezone.now())
    row = UsageDay.objects.filter(day=day).first() or UsageDay(day=day)
    return Spend(
        day=day,
        tokens=row.tokens_in + row.tokens_out + row.tokens_reserved,
        budget=settings.AITOP_AI_DAILY_TOKEN_BUDGET,
        cost=Decimal(row.cost),
        calls=row.calls,
    )
