"""Checking a backend's answer: whatever the model says, only bounded plain text gets through.

The entry text an answer was written from comes from the internet, so the
answer is treated like any other hostile input: a fixed set of keys, the
category from the choices, tags bounded in number and length, every string
bounded and stripped of HTML. Anything else refuses the whole answer.
"""

import dataclasses
import json

from enrichment.prompts import LIMITS
from enrichment.text import plain_text
from feed.models import Category

KEYS = ("headline", "summary", "why", "category", "tags")


class AnswerRefused(ValueError):
    """The answer is not one we may store; the message says why."""


@dataclasses.dataclass(frozen=True)
class Draft:
    """Validated values for the fields, in the content language."""

    headline: str
    summary: str
    why: str
    category: str
    tags: list[str]


def answer_schema() -> dict:
    """The JSON schema sent with each request (structured output), mirroring `answer_validate`."""
    text = {"type": "string"}
    return {
        "type": "object",
        "properties": {
            "headline": {**text, "maxLength": LIMITS.headline_max},
            "summary": {**text, "maxLength": LIMITS.summary_max},
            "why": {**text, "maxLength": LIMITS.why_max},
            "category": {"type": "string", "enum": [*Category.values, ""]},
            "tags": {
                "type": "array",
                "items": {**text, "maxLength": LIMITS.tag_max},
                "maxItems": LIMITS.tags_max,
            },
        },
        "required": list(KEYS),
        "additionalProperties": False,
    }


def _text(answer: dict, key: str, limit: int, *, required: bool) -> str:
    value = answer[key]
    if not isinstance(value, str):
        raise AnswerRefused(f"{key} is not a string")
    value = plain_text(value)
    if len(value) > limit:
        raise AnswerRefused(f"{key} is {len(value)} characters long, more than {limit}")
    if required and not value:
        raise AnswerRefused(f"{key} is empty")
    return value


def answer_validate(content: str) -> Draft:
    """The draft in a model's answer (a JSON object as text), or `AnswerRefused`."""
    try:
        answer = json.loads(content)
    except (TypeError, ValueError) as error:
        raise AnswerRefused(f"the answer is not JSON: {error}") from None
    if not isinstance(answer, dict):
        raise AnswerRefused("the answer is not a JSON object")
    extra = sorted(set(answer) - set(KEYS))
    if extra:
        raise AnswerRefused(f"the answer has keys outside the schema: {', '.join(extra)}")
    missing = [key for key in KEYS if key not in answer]
    if missing:
        raise AnswerRefused(f"the answer lacks {', '.join(missing)}")
    category = answer["category"]
    if category not in [*Category.values, ""]:
        raise AnswerRefused(f"category {str(category)[:40]!r} is not one of the choices")
    tags = answer["tags"]
    if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
        raise AnswerRefused("tags is not a list of strings")
    if len(tags) > LIMITS.tags_max:
        raise AnswerRefused(f"{len(tags)} tags, more than {LIMITS.tags_max}")
    clean_tags: list[str] = []
    for tag in tags:
        tag = plain_text(tag).strip(" #,")
        if len(tag) > LIMITS.tag_max:
            raise AnswerRefused(f"tag {tag[:40]!r} is longer than {LIMITS.tag_max} characters")
        if tag and tag.casefold() not in {t.casefold() for t in clean_tags}:
            clean_tags.append(tag)
    return Draft(
        headline=_text(answer, "headline", LIMITS.headline_max, required=True),
        summary=_text(answer, "summary", LIMITS.summary_max, required=True),
        why=_text(answer, "why", LIMITS.why_max, required=False),
        category=category,
        tags=clean_tags,
    )
