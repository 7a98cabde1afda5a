"""The backends that write drafts, chosen by AITOP_AI_BACKEND."""

from django.conf import settings

from enrichment.backends.base import Answer, Backend, BackendError, BudgetExhausted
from enrichment.backends.chat import ChatBackend
from enrichment.backends.offline import OfflineBackend

__all__ = [
    "Answer",
    "Backend",
    "BackendError",
    "BudgetExhausted",
    "ChatBackend",
    "OfflineBackend",
    "backend_from_settings",
]


def backend_from_settings() -> Backend:
    """The backend the settings name: the offline one unless AITOP_AI_BACKEND=chat."""
    if settings.AITOP_AI_BACKEND == "chat":
        return ChatBackend.from_settings()
    return OfflineBackend()
