"""What every backend returns, and the errors it may raise."""

import dataclasses
import datetime
from decimal import Decimal
from typing import Protocol

from enrichment.validate import Draft
from feed.models import Item


class BackendError(Exception):
    """The backend could not answer (network, HTTP error, retries spent)."""

    def __init__(self, message: str, *, tokens_in: int = 0, tokens_out: int = 0):
        super().__init__(message)
        self.tokens_in = tokens_in
        self.tokens_out = tokens_out


class BudgetExhausted(Exception):
    """Today's token budget cannot pay for this call; the item waits, nothing failed."""


@dataclasses.dataclass
class Answer:
    """One backend's answer for one item: a draft, or raw text still to be validated."""

    backend: str
    model: str
    prompt_version: str
    draft: Draft | None = None
    content: str = ""
    tokens_in: int = 0
    tokens_out: int = 0
    cost: Decimal = Decimal(0)
    # Fields this backend cannot write well, left for an editor.
    needs_editor: list[str] = dataclasses.field(default_factory=list)


class Backend(Protocol):
    name: str

    def answer(self, *, item: Item, language: str, now: datetime.datetime) -> Answer:
        """Draft the fields of `item` in `language`."""
        ...
