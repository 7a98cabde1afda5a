"""Background work for stories and heat, run by `manage.py db_worker`."""

from django.tasks import task

from stories.heat import heat_recompute
from stories.membership import items_match


@task()
def match_items(item_ids: list[int]) -> int:
    """Put newly arrived items into their stories, then refresh their heat."""
    joined = items_match(item_ids=item_ids)
    heat_recompute(item_ids=item_ids)
    return joined


@task()
def recompute_heat() -> int:
    """Recompute every item's heat (age decay moves it): for a periodic runner."""
    return heat_recompute()


@task()
def recompute_item_heat(item_ids: list[int]) -> int:
    """Recompute some items' heat after a click, a publish or a story change."""
    return heat_recompute(item_ids=item_ids)
