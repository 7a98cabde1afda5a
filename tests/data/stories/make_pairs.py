"""Build pairs.jsonl (tuning) and heldout.jsonl (never tuned on) from groups.py.

Run from the project root: `.venv/bin/python tests/data/stories/make_pairs.py`.
Deterministic: the same groups give the same files.
"""

import datetime
import itertools
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from feed.demo_content import ITEMS as DEMO_ITEMS  # noqa: E402
from stories.matching.signature import shingles_of  # noqa: E402
from stories.matching.verdict import jaccard  # noqa: E402
from tests.data.stories.groups import GROUPS, HARD_NEGATIVES, PAPERS  # noqa: E402

START = datetime.datetime(2026, 10, 1, tzinfo=datetime.UTC)
KINDS = {"arxiv": "paper", "github": "blog", "wire": "news", "tidewater": "news"}


def item(source, lang, day, hours, url, title, summary) -> dict:
    kind = next((k for key, k in KINDS.items() if key in source), "news")
    at = START + datetime.timedelta(days=day, hours=hours)
    return {
        "title": title,
        "summary": summary,
        "url": url,
        "source": source,
        "kind": kind,
        "published_at": at.isoformat(),
        "lang": lang,
    }


def held_out(index: int) -> bool:
    return index % 3 == 2


def main() -> None:
    train, held = [], []
    groups = [
        [item(s, lang, day, h, u, t, m) for s, lang, h, u, t, m in items] for day, items in GROUPS
    ]
    for index, members in enumerate(groups):
        out = held if held_out(index) else train
        for n, (a, b) in enumerate(itertools.combinations(members, 2)):
            out.append({"id": f"story{index:02d}-{n}", "same": True, "a": a, "b": b})
    for index, (a, b) in enumerate(HARD_NEGATIVES):
        out = held if held_out(index) else train
        out.append({"id": f"hard{index:02d}", "same": False, "a": item(*a), "b": item(*b)})
    # Different stories from different groups, moved to the same day, most alike first.
    for index, members in enumerate(groups):
        out = held if held_out(index) else train
        lead = members[0]
        others = [g[k] for j, g in enumerate(groups) if j != index for k in range(len(g))]
        others.sort(key=lambda o: -jaccard(shingles_of(lead["title"]), shingles_of(o["title"])))
        for n, other in enumerate(others[:4]):
            moved = {**other, "published_at": lead["published_at"]}
            out.append({"id": f"near{index:02d}-{n}", "same": False, "a": lead, "b": moved})
    # Two papers on one topic: as arXiv entries, and as news coverage without the ids.
    for index, ((id_a, title_a), (id_b, title_b)) in enumerate(
        zip(PAPERS[::2], PAPERS[1::2], strict=True)
    ):
        out = held if held_out(index) else train
        a = item("arxiv-cs-se", "en", 50, 0, f"https://arxiv.org/abs/{id_a}v1", title_a, "")
        b = item("arxiv-cs-se", "en", 50, 2, f"https://arxiv.org/abs/{id_b}v1", title_b, "")
        out.append({"id": f"paper{index:02d}", "same": False, "a": a, "b": b})
    # The demo's own stories: all different, one day apart at most.
    demo = [d for d in DEMO_ITEMS if d.get("hours_ago", 999) <= 48]
    for index, (a, b) in enumerate(itertools.combinations(demo[:12], 2)):
        if index % 2:
            continue
        out = held if held_out(index // 2) else train
        out.append(
            {
                "id": f"demo{index:03d}",
                "same": False,
                "a": item(
                    a["source"],
                    "zh",
                    60,
                    48 - a["hours_ago"],
                    f"https://{a['source']}.example/{index}a",
                    a["title"],
                    a.get("summary", ""),
                ),
                "b": item(
                    b["source"],
                    "zh",
                    60,
                    48 - b["hours_ago"],
                    f"https://{b['source']}.example/{index}b",
                    b["title"],
                    b.get("summary", ""),
                ),
            }
        )
    for name, rows in (("pairs.jsonl", train), ("heldout.jsonl", held)):
        with (HERE / name).open("w", encoding="utf-8") as out:
            for row in rows:
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
        same = sum(row["same"] for row in rows)
        print(f"{name}: {len(rows)} pairs, {same} same, {len(rows) - same} different")


if __name__ == "__main__":
    main()
