from django import template
from django.utils.safestring import mark_safe

from feed.html import clean_html

register = template.Library()


@register.filter(name="clean_html")
def clean_html_filter(value: str) -> str:
    """Render stored HTML only after sanitising it again (defence in depth)."""
    return mark_safe(clean_html(value or ""))  # noqa: S308 - cleaned by nh3 just above
