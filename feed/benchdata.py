"""Synthetic sources, tags and items for the benchmark (`manage.py bench_seed`).

Text is Chinese and English made from word lists, so search has something to
find: `RARE_WORDS` each appear in one item in `RARE_EVERY`, the topics in
many. About 1,000 items a day with some busy days at three times that, and
the status mix of a working desk: drafts, rejected, scheduled, featured.
On PostgreSQL rows go in by COPY with the tables' secondary indexes dropped
and rebuilt afterwards, in one transaction; elsewhere by large batches.

Why this is not in `bench/` with the benchmarks: `bench_seed` must run under
the site's own settings (bench/site.py seeds the very database it then serves
in production configuration, where the `bench` app is not installed), and
`bench/` is a harness that imports the site, never the reverse. Why it does
not share `tests/factories.py`: a factory writes one item with its
`save()`, this writes a hundred thousand by COPY; what they share is the
model, and the defaults that matter (a visible item) are the model's.
"""

import datetime
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from django.db import connection, models, transaction
from django.utils import timezone
from taggit.models import Tag

from aitop.days import day_start
from feed.models import Item, Kind, Source, TaggedItem

CN_ORGS = ["深度求索", "月之暗面", "智谱", "百川智能", "阿里云", "腾讯", "字节跳动", "华为", "百度"]
CN_ORGS += ["商汤", "零一万物", "阶跃星辰", "面壁智能", "科大讯飞", "小米", "清华大学", "北京大学"]
CN_VERBS = ["发布", "开源", "推出", "更新", "宣布", "上线", "升级", "公布", "详解", "测评"]
CN_TOPICS = ["大模型", "多模态", "智能体", "推理", "训练", "微调", "量化", "蒸馏", "对齐"]
CN_TOPICS += ["强化学习", "长上下文", "芯片", "算力", "数据集", "评测", "机器人", "自动驾驶"]
CN_TOPICS += ["语音识别", "视觉", "编程助手", "检索增强", "向量数据库", "安全", "隐私", "端侧"]
CN_THINGS = ["新一代模型", "推理框架", "评测基准", "训练方法", "开发者工具", "接口", "论文"]
CN_THINGS += ["数据集", "技术报告", "开源权重", "应用", "路线图"]
CN_CLAUSES = ["在多项基准上领先", "成本下降一半", "支持百万字上下文", "面向企业开放"]
CN_CLAUSES += ["代码与权重同步开源", "推理速度提升三倍", "引发社区热议", "效果接近闭源模型"]
EN_ORGS = ["OpenAI", "Anthropic", "Google DeepMind", "Meta", "Mistral", "Hugging Face", "NVIDIA"]
EN_ORGS += ["Microsoft", "Apple", "Cohere", "Stability AI", "AI2", "xAI", "Perplexity"]
EN_VERBS = ["releases", "open-sources", "announces", "ships", "previews", "updates", "explains"]
EN_ADJS = ["faster", "smaller", "multimodal", "open", "long-context", "efficient", "new"]
EN_NOUNS = ["model", "agent framework", "benchmark", "inference engine", "dataset", "SDK"]
EN_NOUNS += ["reasoning model", "coding assistant", "paper", "safety report", "API"]
EN_TOPICS = ["reasoning", "retrieval", "alignment", "quantization", "distillation", "robotics"]
EN_TOPICS += ["speech", "vision", "code generation", "evaluation", "fine-tuning", "RLHF"]
EN_CLAUSES = ["beats the previous state of the art", "runs on a single GPU"]
EN_CLAUSES += ["comes with open weights", "halves the cost per token", "is available today"]
EN_CLAUSES += ["was trained on synthetic data", "scores well on MMLU and GSM8K"]
AUTHORS = ["Ada Moreau", "Lin Qiao", "Wei Zhang", "Priya Natarajan", "Jonas Berg", "李雷"]
AUTHORS += ["韩梅梅", "Sara Okafor", "Diego Ramos", "Yuki Tanaka", ""]
# Words each found in about one item in RARE_EVERY: the benchmark's rare searches.
RARE_WORDS = ["鲲鹏", "zephyrine"]
RARE_EVERY = 10_000
TAG_NAMES = CN_TOPICS + [t.replace(" ", "-") for t in EN_TOPICS] + CN_ORGS + EN_ORGS
# A long tail of narrower tags, as a desk's tag list grows one.
TAG_NAMES += [f"{org} {topic}" for org in EN_ORGS for topic in EN_TOPICS][:232]
CATEGORIES = ["model", "product", "industry", "paper", "tip", ""]
# Out of 100 items: how many end in each state ("scheduled" is published, publish time to come).
STATUS_WEIGHTS = {"published": 83, "featured": 5, "draft": 6, "rejected": 4, "scheduled": 2}
BUSY_DAY_SHARE = 0.05
BUSY_DAY_FACTOR = 3


@dataclass
class SeedResult:
    sources: int
    tags: int
    items: int
    tagged: int


def _title(rng: random.Random, n: int) -> str:
    if n % 2:
        title = rng.choice(CN_ORGS) + rng.choice(CN_VERBS)
        title += rng.choice(CN_TOPICS) + rng.choice(CN_THINGS)
    else:
        title = (
            f"{rng.choice(EN_ORGS)} {rng.choice(EN_VERBS)} {rng.choice(EN_ADJS)} "
            f"{rng.choice(EN_NOUNS)} for {rng.choice(EN_TOPICS)}"
        )
    if n % RARE_EVERY == RARE_EVERY // 2:
        title += " " + RARE_WORDS[(n // RARE_EVERY) % len(RARE_WORDS)]
    return title


def _summary(rng: random.Random, n: int) -> str:
    if n % 3:
        return (
            f"{rng.choice(CN_ORGS)}{rng.choice(CN_VERBS)}了{rng.choice(CN_TOPICS)}方面的"
            f"{rng.choice(CN_THINGS)}，{rng.choice(CN_CLAUSES)}。"
            f"它{rng.choice(CN_CLAUSES)}，{rng.choice(CN_TOPICS)}与{rng.choice(CN_TOPICS)}"
            f"的结合{rng.choice(CN_CLAUSES)}。"
        )
    return (
        f"The {rng.choice(EN_ADJS)} {rng.choice(EN_NOUNS)} {rng.choice(EN_CLAUSES)}. "
        f"It targets {rng.choice(EN_TOPICS)} and {rng.choice(EN_TOPICS)}, "
        f"and {rng.choice(EN_CLAUSES)}."
    )


def _day_counts(*, items: int, days: int, rng: random.Random) -> list[int]:
    """Items per day, oldest first: about even, with some busy days."""
    weights = [BUSY_DAY_FACTOR if rng.random() < BUSY_DAY_SHARE else 1 for _ in range(days)]
    total = sum(weights)
    counts = [items * weight // total for weight in weights]
    counts[-1] += items - sum(counts)
    return counts


def _status(rng: random.Random) -> str:
    return rng.choices(list(STATUS_WEIGHTS), weights=list(STATUS_WEIGHTS.values()))[0]


def _item_rows(
    *, items: int, days: int, first_id: int, sources: list[Source], tag_ids: list[int], seed: int
) -> Iterator[tuple[dict, list[int]]]:
    """(field values by attname, tag ids) for each item, oldest first."""
    rng = random.Random(seed)  # noqa: S311 - test data, not secrets
    now = timezone.now()
    today = timezone.localdate(now)
    tz = timezone.get_current_timezone()
    n = 0
    for offset, count in enumerate(_day_counts(items=items, days=days, rng=rng)):
        day = today - datetime.timedelta(days=days - 1 - offset)
        start = day_start(day, tz=tz)
        for moment in sorted(rng.randrange(86_400) for _ in range(count)):
            pk = first_id + n
            source = sources[n % len(sources)]
            at = min(start + datetime.timedelta(seconds=moment), now)
            status = _status(rng)
            published_at = at
            if status == "scheduled":
                status, published_at = (
                    "published",
                    now + datetime.timedelta(minutes=rng.randrange(1, 7 * 24 * 60)),
                )
            elif status in ("draft", "rejected"):
                published_at = None
            values = {
                "id": pk,
                "source_id": source.pk,
                "title": _title(rng, n),
                "url": f"https://bench.example/{source.slug}/{pk}",
                "guid": f"bench-{pk}",
                "authors": rng.choice(AUTHORS),
                "summary": _summary(rng, n),
                "recommendation": "" if n % 4 else f"值得关注：{rng.choice(CN_CLAUSES)}。",
                "kind": source.kind,
                "category": rng.choice(CATEGORIES),
                "status": status,
                "heat": rng.randrange(101),
                "published_at": published_at,
                "created_at": at,
                "updated_at": at,
                "fetched_at": at,
            }
            # A few popular tags, a long tail of the rest.
            chosen = {
                tag_ids[int(len(tag_ids) * rng.random() ** 2.5)] for _ in range(rng.randint(1, 4))
            }
            yield values, sorted(chosen)
            n += 1


def _defaults(fields: list[models.Field]) -> dict[str, object]:
    """What a row holds in the columns the generator does not fill."""
    defaults = {}
    for field in fields:
        value = field.get_default()
        if isinstance(field, models.JSONField):
            value = json.dumps(value)
        defaults[field.attname] = value
    return defaults


def bench_sources(*, count: int) -> list[Source]:
    """`count` sources of every kind, with names as a desk would have them."""
    kinds = list(Kind.values)
    names = CN_ORGS + EN_ORGS
    return Source.objects.bulk_create(
        Source(
            name=f"{names[n % len(names)]} {n}",
            slug=f"bench-source-{n}",
            kind=kinds[n % len(kinds)],
            homepage_url=f"https://bench.example/{n}/",
        )
        for n in range(count)
    )


def bench_tags() -> list[Tag]:
    """The topic and organisation tags, Chinese and English."""
    from django.utils.text import slugify

    return Tag.objects.bulk_create(
        Tag(name=name, slug=slugify(name, allow_unicode=True)) for name in TAG_NAMES
    )


def bench_seed(
    *,
    items: int,
    days: int,
    sources: int = 200,
    seed: int = 42,
    progress: Callable[[Iterator, int, str], Iterator] = lambda it, total, desc: it,
) -> SeedResult:
    """Fill the empty database with synthetic sources, tags and items (with their tags)."""
    if Item.objects.exists() or Source.objects.exists():
        raise ValueError("the database already holds items or sources: seed an empty one")
    with transaction.atomic():
        source_rows = bench_sources(count=sources)
        tag_ids = [tag.pk for tag in bench_tags()]
        rows = _item_rows(
            items=items, days=days, first_id=1, sources=source_rows, tag_ids=tag_ids, seed=seed
        )
        rows = progress(rows, items, "items")
        if connection.vendor == "postgresql":
            tagged = _copy_postgresql(rows, total=items, progress=progress)
        else:
            tagged = _insert_batches(rows)
    return SeedResult(sources=len(source_rows), tags=len(tag_ids), items=items, tagged=tagged)


def _item_columns() -> tuple[list[str], dict[str, object]]:
    fields = list(Item._meta.concrete_fields)
    return [field.attname for field in fields], _defaults(fields)


def _copy_postgresql(rows, *, total: int, progress) -> int:
    """COPY items and their tags, the secondary indexes dropped meanwhile and rebuilt after."""
    attnames, defaults = _item_columns()
    columns = ", ".join(Item._meta.get_field(name).column for name in attnames)
    tagged = []
    with connection.cursor() as cursor:
        indexes = _secondary_indexes(cursor, [Item._meta.db_table, TaggedItem._meta.db_table])
        for name, _ in indexes:
            cursor.execute(f"DROP INDEX {name}")
        with cursor.copy(f"COPY {Item._meta.db_table} ({columns}) FROM STDIN") as copy:
            for values, tag_ids in rows:
                copy.write_row([values.get(name, defaults[name]) for name in attnames])
                tagged.extend((values["id"], tag_id) for tag_id in tag_ids)
        table = TaggedItem._meta.db_table
        with cursor.copy(f"COPY {table} (content_object_id, tag_id) FROM STDIN") as copy:
            for row in tagged:
                copy.write_row(row)
        # Run the deferred foreign-key checks now: an index cannot be built while they wait.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("SET LOCAL maintenance_work_mem = '512MB'")
        for _, definition in progress(iter(indexes), len(indexes), "indexes"):
            cursor.execute(definition)
        cursor.execute(
            "SELECT setval(pg_get_serial_sequence(%s, 'id'), %s)",
            [Item._meta.db_table, max(total, 1)],
        )
    return len(tagged)


def _secondary_indexes(cursor, tables: list[str]) -> list[tuple[str, str]]:
    """(name, CREATE INDEX statement) of the tables' indexes that back no constraint."""
    cursor.execute(
        """SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid)
        FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid
        WHERE t.relname = ANY(%s)
          AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
        ORDER BY 1""",
        [tables],
    )
    return cursor.fetchall()


def _insert_batches(rows, *, batch_size: int = 5000) -> int:
    """INSERT items and their tags in large batches (SQLite, or any other database)."""
    attnames, defaults = _item_columns()
    fields = [Item._meta.get_field(name) for name in attnames]
    table = connection.ops.quote_name(Item._meta.db_table)
    columns = ", ".join(connection.ops.quote_name(field.column) for field in fields)
    marks = ", ".join(["%s"] * len(fields))
    item_sql = f"INSERT INTO {table} ({columns}) VALUES ({marks})"  # noqa: S608 - our own names
    tag_table = connection.ops.quote_name(TaggedItem._meta.db_table)
    tag_sql = f"INSERT INTO {tag_table} (content_object_id, tag_id) VALUES (%s, %s)"  # noqa: S608
    adapt = connection.ops.adapt_datetimefield_value
    batch, tagged, count = [], [], 0
    with connection.cursor() as cursor:
        for values, tag_ids in rows:
            row = []
            for name, field in zip(attnames, fields, strict=True):
                value = values.get(name, defaults[name])
                row.append(adapt(value) if isinstance(field, models.DateTimeField) else value)
            batch.append(row)
            tagged.extend((values["id"], tag_id) for tag_id in tag_ids)
            if len(batch) >= batch_size:
                cursor.executemany(item_sql, batch)
                cursor.executemany(tag_sql, tagged)
                count += len(tagged)
                batch, tagged = [], []
        if batch:
            cursor.executemany(item_sql, batch)
            cursor.executemany(tag_sql, tagged)
            count += len(tagged)
    return count
