"""Days and times: midnight in the site's time zone, and what a time without an offset means.

The policy for naive times, in one place. A time another machine wrote
without an offset (a feed's date, an HTTP date, a Retry-After) is read as
UTC: that is what HTTP dates mean (RFC 9110), and for a feed it is the least
wrong guess about a publisher anywhere in the world (`utc_if_naive`). A time
a person types on our own site or API without an offset (a filter's `since`,
a publish time) is read in the site's time zone, the clock of the pages they
are looking at (`django.utils.timezone.make_aware`). Times we write
ourselves (cursors, the database) always carry their offset, and a cursor
without one is refused. Stored times are aware and in UTC (`USE_TZ = True`).
"""

import datetime
import zoneinfo

from django.utils import timezone


def day_start(day: datetime.date, *, tz: zoneinfo.ZoneInfo | None = None) -> datetime.datetime:
    """Midnight at the start of `day` in the site's time zone (or `tz`)."""
    return datetime.datetime.combine(
        day, datetime.time.min, tzinfo=tz or timezone.get_current_timezone()
    )


def today_start(now: datetime.datetime | None = None) -> datetime.datetime:
    """The last midnight in the site's time zone, as of `now`."""
    return day_start(timezone.localdate(now or timezone.now()))


def utc_if_naive(moment: datetime.datetime) -> datetime.datetime:
    """`moment` as written by another machine: a time without an offset is UTC."""
    return moment.replace(tzinfo=datetime.UTC) if moment.tzinfo is None else moment
