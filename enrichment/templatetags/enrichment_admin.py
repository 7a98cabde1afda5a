from django import template

from enrichment.budget import spend_today

register = template.Library()


@register.inclusion_tag("enrichment/spend.html", takes_context=True)
def enrichment_spend(context) -> dict:
    """Today's AI spend against the daily budget, for users who may see items."""
    if not context["request"].user.has_perm("feed.view_item"):
        return {"spend": None}
    return {"spend": spend_today()}
