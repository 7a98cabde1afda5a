from django import template

from editorial.dashboard import dashboard_build

register = template.Library()


@register.inclusion_tag("editorial/dashboard.html", takes_context=True)
def editorial_dashboard(context) -> dict:
    """The editors' dashboard, for users who may see items."""
    user = context["request"].user
    if not user.has_perm("feed.view_item"):
        return {"dashboard": None}
    return {
        "dashboard": dashboard_build(),
        "can_see_sources": user.has_perm("feed.view_source"),
    }
