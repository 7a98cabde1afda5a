"""Running one workflow move over many items and telling the editor how it went."""

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import ngettext

from editorial.errors import WorkflowError
from editorial.models import LogAction
from editorial.workflow import item_move
from feed.models import Item


@dataclass
class BulkResult:
    """How many items moved, and for each one that did not, why."""

    done: int = 0
    refused: list[str] = field(default_factory=list)


def items_move(items: Iterable[Item], action: LogAction, **kwargs) -> BulkResult:
    """Make the move `action` on each item on its own, so one refusal does not stop the rest."""
    result = BulkResult()
    for item in items:
        try:
            item_move(action, item=item, **kwargs)
        except WorkflowError as error:
            result.refused.append(error.message)
        else:
            result.done += 1
    return result


def done_message(action: LogAction, count: int) -> str:
    """ "Published 3 items." and the like."""
    messages = {
        LogAction.PUBLISH: ngettext(
            "Published %(count)d item.", "Published %(count)d items.", count
        ),
        LogAction.FEATURE: ngettext("Featured %(count)d item.", "Featured %(count)d items.", count),
        LogAction.UNFEATURE: ngettext(
            "Unfeatured %(count)d item.", "Unfeatured %(count)d items.", count
        ),
        LogAction.REJECT: ngettext("Rejected %(count)d item.", "Rejected %(count)d items.", count),
        LogAction.RESTORE: ngettext(
            "Restored %(count)d item to the drafts.",
            "Restored %(count)d items to the drafts.",
            count,
        ),
    }
    return messages[action] % {"count": count}


def refused_message(refused: list[str]) -> SafeString:
    """ "2 items were left as they were:" followed by each one's reason."""
    head = ngettext(
        "%(count)d item was left as it was:",
        "%(count)d items were left as they were:",
        len(refused),
    ) % {"count": len(refused)}
    return format_html(
        "{}<ul>{}</ul>", head, format_html_join("", "<li>{}</li>", ((r,) for r in refused))
    )
