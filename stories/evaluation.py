"""Scoring the matcher on labelled pairs (JSON Lines: {"id", "same", "a": ITEM, "b": ITEM})."""

import dataclasses
import datetime
import json
from pathlib import Path

from stories.matching.signature import signature_of
from stories.matching.verdict import candidates_meet, verdict


@dataclasses.dataclass
class Evaluation:
    pairs: int = 0
    true_positive: int = 0
    false_positive: int = 0
    false_negative: int = 0
    wrong: list[dict] = dataclasses.field(default_factory=list)

    @property
    def precision(self) -> float:
        found = self.true_positive + self.false_positive
        return self.true_positive / found if found else 1.0

    @property
    def recall(self) -> float:
        real = self.true_positive + self.false_negative
        return self.true_positive / real if real else 1.0


class PairError(ValueError):
    """A line of a pairs file that is not a labelled pair; says which line."""


def _signature(item: dict):
    at = item.get("published_at")
    moment = datetime.datetime.fromisoformat(at) if at else None
    return signature_of(
        title=item["title"], summary=item.get("summary", ""), url=item.get("url", ""), at=moment
    )


def pairs_read(path: Path) -> list[dict]:
    pairs = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            pair = json.loads(line)
            if not (isinstance(pair["same"], bool) and pair["a"]["title"] and pair["b"]["title"]):
                raise ValueError("same must be true or false, and both items need a title")
        except (ValueError, KeyError, TypeError) as error:
            raise PairError(f"line {number}: not a labelled pair ({error!r})") from None
        pairs.append(pair)
    return pairs


def pairs_evaluate(pairs: list[dict]) -> Evaluation:
    """Run index and verdict on each pair as on two real items: a match must be both found
    by a shared index key and judged the same."""
    result = Evaluation()
    for pair in pairs:
        a, b = _signature(pair["a"]), _signature(pair["b"])
        found = verdict(b, a)
        said = candidates_meet(a, b) and found.same
        result.pairs += 1
        if said and pair["same"]:
            result.true_positive += 1
        elif said:
            result.false_positive += 1
        elif pair["same"]:
            result.false_negative += 1
        if said != pair["same"]:
            result.wrong.append(
                {
                    "id": pair["id"],
                    "same": pair["same"],
                    "why": found.reason,
                    "a": pair["a"]["title"],
                    "b": pair["b"]["title"],
                }
            )
    return result
