"""Template filters of the public pages."""

import datetime

from django import template
from django.utils import formats, timezone
from django.utils.safestring import mark_safe

from feed.html import clean_html

register = template.Library()


@register.filter(name="clean_html")
def clean_html_filter(value: str) -> str:
    """Render stored HTML only after sanitising it again (defence in depth)."""
    return mark_safe(clean_html(value or ""))  # noqa: S308 - cleaned by nh3 just above


@register.filter
def day_heading(day: datetime.date, today: datetime.date | None = None) -> str:
    """`6月19日` / `June 19`, with the year when it is not this year's."""
    if not isinstance(today, datetime.date):
        today = timezone.localdate()
    if day.year == today.year:
        return formats.date_format(day, "MONTH_DAY_FORMAT")
    return formats.date_format(day, "DATE_FORMAT")
