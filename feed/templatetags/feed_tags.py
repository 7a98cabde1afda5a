"""Template filters of the public pages."""

import datetime
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from django import template
from django.conf import settings
from django.urls import NoReverseMatch, reverse, translate_url
from django.utils import formats, timezone, translation
from django.utils.encoding import uri_to_iri
from django.utils.safestring import mark_safe

from feed.html import clean_html
from feed.ingest.wording import recorded_text

register = template.Library()


@register.filter(name="clean_html")
def clean_html_filter(value: str) -> str:
    """Render stored HTML only after sanitising it again (defence in depth)."""
    return mark_safe(clean_html(value or ""))  # noqa: S308 - cleaned by nh3 just above


@register.filter(name="recorded")
def recorded_filter(value: str) -> str:
    """A fetch's stored error, warning or skip reason in the reader's language."""
    return recorded_text(value or "")


@register.filter
def day_heading(day: datetime.date, today: datetime.date | None = None) -> str:
    """`6月19日` / `June 19`, with the year when it is not this year's."""
    if not isinstance(today, datetime.date):
        today = timezone.localdate()
    if day.year == today.year:
        return formats.date_format(day, "MONTH_DAY_FORMAT")
    return formats.date_format(day, "DATE_FORMAT")


@dataclass(frozen=True)
class LanguageLink:
    """This page in one of the site's languages."""

    code: str
    name: str
    url: str
    current: bool


@register.simple_tag
def language_links(request) -> list[LanguageLink]:
    """This page (path and query) in every language: plain links, hreflang alternates."""
    here = request.get_full_path()
    current = translation.get_language()
    return [
        LanguageLink(
            code=code,
            name=translation.get_language_info(code)["name_local"],
            url=_translated(here, code, request.resolver_match),
            current=code == current,
        )
        for code, _name in settings.LANGUAGES
    ]


def _translated(url: str, code: str, match) -> str:
    """`translate_url(url, code)`, reversing the request's own match instead of resolving again.

    Resolving the path once more for each language was about a tenth of a
    page's frame; a page that matched no URL (a 404) is translated as before.
    """
    if match is None or match.url_name is None:
        return translate_url(url, code)
    with translation.override(code):
        try:
            path = reverse(match.view_name, args=match.args, kwargs=match.kwargs)
        except NoReverseMatch:
            return url
    parsed = urlsplit(url)
    return urlunsplit((parsed.scheme, parsed.netloc, path, parsed.query, parsed.fragment))


@register.filter
def machine_time(moment: datetime.datetime) -> str:
    """A `<time datetime>` value: the local time to the second, without the microseconds."""
    return timezone.localtime(moment).isoformat(timespec="seconds")


@register.filter
def iri(url: str) -> str:
    """A URL with its percent-encoded UTF-8 shown as characters: a third of the bytes."""
    return uri_to_iri(url)
