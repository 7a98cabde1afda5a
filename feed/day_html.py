"""The stream's day sections written in Python: the markup of feed/partials/day.html.

A search or a rare tag spreads its 50 cards over as many days, and the
template engine then renders the day partial once a day (an include, about
ten lookups and three translations each): 7 of a cold search page's 27 ms
of CPU at a million items. Here each section is a few joins of values
`DayCards` already holds, escaped, with the translated words looked up once
a page.

The partial stays the reference (and the day page, with its one hidden
heading, still includes it): tests/feed/test_day_html.py renders both in
each language, for headings continued and not, and compares them byte for
byte. A change to the section goes into both.
"""

from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

from feed.card_html import escape


def _section(day, heading: str, *, continues: str) -> str:
    """The partial's <section> around a heading block (its lines, indented) and the cards."""
    more = f'\n    <p class="note day-continues">{continues}</p>\n  ' if day.continues else ""
    return (
        f'\n<section class="day" aria-labelledby="day-{day.iso}">\n  \n{heading}  \n'
        f"  {''.join(day.cards)}\n  {more}\n</section>\n"
    )


def day_section_html(day, *, continued: str, brief: str, continues: str) -> str:
    """One day (a `feed.pages.DayCards`) with a linked heading, as the partial renders it."""
    heading = f'<a href="{escape(day.url)}">{escape(day.heading)}</a>'
    if day.continued:
        heading += f' <span class="day-continued">{continued}</span>'
    lines = (
        f'  <h2 class="day-heading" id="day-{day.iso}">{heading}</h2>\n'
        f'  <p class="day-brief"><a href="{escape(day.brief_url)}">{brief}</a></p>\n'
    )
    return _section(day, lines, continues=continues)


def day_section_hidden_html(day, *, continued: str, continues: str) -> str:
    """One day with its heading for screen readers only, as the day page includes the partial."""
    heading = escape(day.heading) + (f" {continued}" if day.continued else "")
    lines = f'  <h2 class="visually-hidden" id="day-{day.iso}">{heading}</h2>\n'
    return _section(day, lines, continues=continues)


def _words() -> dict[str, str]:
    """What every day section of a page says alike, translated and escaped once."""
    return {
        "continued": escape(gettext("(continued)")),
        "brief": escape(gettext("Daily brief")),
        "continues": escape(gettext("More of this day on the next page.")),
    }


def day_sections_hidden(days: list) -> list[str]:
    """The day page's sections, each with its heading hidden (`day_section_hidden_html`)."""
    words = _words()
    return [
        day_section_hidden_html(day, continued=words["continued"], continues=words["continues"])
        for day in days
    ]


def days_html(days: list) -> SafeString:
    """The stream's days, in order; the cards inside are already escaped HTML."""
    words = _words()
    # Every value is escaped above, the cards by feed/card_html.py.
    return mark_safe("".join(day_section_html(day, **words) for day in days))  # noqa: S308
