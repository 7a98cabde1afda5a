"""Path converters of the public site, registered when imported (by feed.urls, stories.urls)."""

import datetime

from django.urls import register_converter

from feed.filters import EARLIEST_DATE, LATEST_DATE


class DayConverter:
    """A YYYY-MM-DD date in the path; an impossible date is no match (a 404)."""

    regex = r"\d{4}-\d{2}-\d{2}"

    def to_python(self, value: str) -> datetime.date:
        day = datetime.date.fromisoformat(value)
        if not EARLIEST_DATE <= day <= LATEST_DATE:
            raise ValueError(value)
        return day

    def to_url(self, value: datetime.date) -> str:
        return value.isoformat()


register_converter(DayConverter, "day")
