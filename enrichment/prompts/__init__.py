"""The versioned prompts: one folder per version, each file's hash recorded here.

A released version never changes: every run records the version it used, so
an editor can tell which wording wrote a draft. To change the wording, add a
new folder (enrich-v2), record its hashes below and point CURRENT at it; the
test suite fails if a released file's bytes drift from its hash.
"""

import dataclasses
import functools
import hashlib
import json
import string
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from feed.models import Category

HERE = Path(__file__).resolve().parent
CURRENT = "enrich-v1"
RELEASED = {
    "enrich-v1": {
        "system.txt": "0d2e3b00a05dcc5a8dd9c69b945a7aa0c1ad7534ade5fd664132bc0ff738078b",
        "user.txt": "19771f94816045b90d469f469e6bd3cd667c661bae6af32ab99ce4a6126e1209",
    },
}
LANGUAGE_NAMES = {"zh-hans": "Simplified Chinese", "en": "English"}
CATEGORY_HELP = (
    "model: a new or updated AI model; product: an AI product or feature people can use; "
    "industry: companies, funding, policy, people; paper: a research paper; "
    "tip: a tutorial, technique or how-to."
)


@dataclasses.dataclass(frozen=True)
class Limits:
    """The bounds every answer is checked against (and that the prompt announces)."""

    headline_max: int = 120
    summary_max: int = 400
    why_max: int = 160
    tags_max: int = 5
    tag_max: int = 24


LIMITS = Limits()


@dataclasses.dataclass(frozen=True)
class Prompt:
    version: str
    system: str
    user: str


def file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@functools.cache
def _templates(version: str) -> tuple[string.Template, string.Template]:
    """The version's two templates, refused if a file differs from its released hash."""
    if version not in RELEASED:
        raise ImproperlyConfigured(f"unknown prompt version {version!r}")
    texts = []
    for name, digest in RELEASED[version].items():
        path = HERE / version / name
        if file_hash(path) != digest:
            raise ImproperlyConfigured(
                f"{path} changed after release; add a new prompt version instead"
            )
        texts.append(string.Template(path.read_text(encoding="utf-8")))
    return texts[0], texts[1]


def prompt_render(*, entry: dict, language: str, version: str = CURRENT) -> Prompt:
    """The messages for one entry: the rules in the system message, the entry as JSON data."""
    system, user = _templates(version)
    categories = ", ".join(f'"{value}"' for value in Category.values)
    rules = system.substitute(
        language_name=LANGUAGE_NAMES[language],
        categories=categories,
        category_help=CATEGORY_HELP,
        **dataclasses.asdict(LIMITS),
    )
    # json.dumps escapes quotes and newlines, so nothing in the entry can end
    # the data block and start text of its own.
    data = json.dumps({"entry": entry}, ensure_ascii=False, indent=1)
    return Prompt(version=version, system=rules, user=user.substitute(entry_json=data))
