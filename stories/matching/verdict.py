"""Whether two items report the same story: a pure function of their signatures.

The rules, strongest first (docs/heat.md gives the figures they reach):

1. Two different arXiv ids are two papers; the same id (any version, abs or
   pdf) is one.
2. The same address (ignoring scheme, www., trailing slash and query order)
   is one story.
3. Items further apart in time than `WINDOW` are different stories (a lab's
   next release, last week's model's follow-up).
4. Conflicting facts veto: both name models and none in common (GPT-5 vs
   GPT-5.1), or both give amounts and none in common ($50M vs $80M), or
   both name companies and none in common ("X raises $50M" vs "Y raises $50M").
5. Then the text decides: near-identical titles, or close titles and
   summaries; across Chinese and English, where shingles cannot meet, the
   same model or name plus the same amount or a second shared name.
"""

import dataclasses
import datetime

from stories.matching.signature import Signature, numbers_conflict

WINDOW = datetime.timedelta(days=3)
TITLE_SAME = 0.5  # Jaccard of title shingles that alone makes one story
TEXT_SAME = 0.3  # Jaccard of title-and-summary shingles, with a shared name or model
TITLE_OVERRULES = 0.8  # titles this close win over a conflicting name
MODEL_TEXT = 0.08  # a shared model name needs at least this much text in common
CONCEPTS_MIN = 3  # across languages: glossary concepts both name…
CONCEPTS_SAME = 0.4  # …and their Jaccard


@dataclasses.dataclass(frozen=True)
class Verdict:
    same: bool
    reason: str  # a StoryItem.Reason value when same, else why not
    score: float


def jaccard(a: frozenset, b: frozenset) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def verdict(a: Signature, b: Signature) -> Verdict:
    """Same story or not, why, and how close the texts are."""
    if a.arxiv_id and b.arxiv_id:
        same = a.arxiv_id == b.arxiv_id
        return Verdict(same, "arxiv" if same else "other paper", float(same))
    if a.url_key and a.url_key == b.url_key:
        return Verdict(True, "url", 1.0)
    if a.at and b.at and abs(a.at - b.at) > WINDOW:
        return Verdict(False, "far apart in time", 0.0)
    title = jaccard(a.title_shingles, b.title_shingles)
    text = jaccard(a.shingles, b.shingles)
    score = max(title, text)
    shared_models = a.models & b.models
    shared_names = a.names & b.names
    if a.title_models and b.title_models and not a.title_models & b.title_models:
        return Verdict(False, "other model", score)
    if a.models and b.models and not shared_models:
        return Verdict(False, "other model", score)
    if numbers_conflict(a.numbers, b.numbers) and title < TITLE_OVERRULES:
        return Verdict(False, "other amount", score)
    if a.names and b.names and not shared_names and not shared_models and title < TITLE_OVERRULES:
        return Verdict(False, "other name", score)
    if title >= TITLE_SAME:
        return Verdict(True, "text", title)
    if text >= TEXT_SAME and (shared_models or shared_names):
        return Verdict(True, "text", text)
    shared_numbers = a.numbers & b.numbers
    across = a.cjk != b.cjk
    if shared_models and (across or text >= MODEL_TEXT or shared_names):
        # The same versioned model within days: its launch and its coverage.
        return Verdict(True, "entities", 0.5 + 0.1 * len(shared_models))
    if shared_names and shared_numbers:
        return Verdict(True, "entities", 0.5 + 0.1 * len(shared_numbers))
    concepts = jaccard(a.concepts, b.concepts)
    if across and len(a.concepts & b.concepts) >= CONCEPTS_MIN and concepts >= CONCEPTS_SAME:
        return Verdict(True, "entities", concepts)
    return Verdict(False, "different text", score)


def candidates_meet(a: Signature, b: Signature) -> bool:
    """Whether the index would offer `b` as a candidate for `a` (they share a key)."""
    return bool(set(a.keys()) & set(b.keys()))
