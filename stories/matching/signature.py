"""What the matcher knows of one item: pure functions from text to shingles, keys and names.

No ORM here, so the evaluation command, the index and the tests all read an
item the same way.
"""

import dataclasses
import datetime
import hashlib
import itertools
import re
import unicodedata
from urllib.parse import urlsplit

from stories.matching.glossary import EN_SAME, ZH_EN

# MinHash permutations and how they are cut into LSH bands (BANDS × ROWS = PERMUTATIONS).
# Two rows a band finds pairs of Jaccard 0.3 nine times in ten and 0.1 a quarter
# of the time; the verdict, not the index, decides.
PERMUTATIONS = 48
BANDS = 24
ROWS = PERMUTATIONS // BANDS
SEED = 14
SUMMARY_CHARS = 300
CONCEPT_KEYS_MAX = 8  # concepts an item is indexed by, in pairs (at most 28 keys)

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
_CJK_RE = re.compile(f"[{_CJK}]")
_RUNS = re.compile(f"[{_CJK}]+|[a-z0-9]+(?:[.\\-][a-z0-9]+)*")
_LATIN_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9]*(?:[.\-][A-Za-z0-9]+)*")
_ARXIV = re.compile(
    r"(?:arxiv\.org/(?:abs|pdf|html)/|arxiv:\s*)(\d{4}\.\d{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/\d{7})"
    r"(?:v\d+)?",
    re.IGNORECASE,
)
_NUMBER = re.compile(
    r"([$€£¥]\s*)?(\d+(?:[.,]\d+)?)\s*(%|percent|billion|million|thousand|bn|[kmb]\b|亿|万)?"
    r"\s*(美元|欧元|元|dollars|euros)?",
    re.IGNORECASE,
)
_SCALE = {
    "%": 1,
    "percent": 1,
    "billion": 1e9,
    "bn": 1e9,
    "b": 1e9,
    "million": 1e6,
    "m": 1e6,
    "thousand": 1e3,
    "k": 1e3,
    "亿": 1e8,
    "万": 1e4,
}
# Acronyms and words that name a field, not a particular lab, model or company.
_GENERIC = frozenset(
    {
        "ai",
        "agi",
        "llm",
        "llms",
        "api",
        "apis",
        "gpu",
        "gpus",
        "cpu",
        "tpu",
        "rag",
        "ml",
        "nlp",
        "cv",
        "rl",
        "rlhf",
        "sota",
        "moe",
        "nn",
        "cnn",
        "rnn",
        "ceo",
        "cto",
        "usa",
        "us",
        "uk",
        "eu",
        "un",
        "open",
        "source",
        "new",
        "the",
        "a",
        "an",
        "and",
        "of",
        "for",
        "with",
        "in",
        "on",
        "at",
        "to",
        "how",
        "why",
        "what",
        "our",
        "we",
        "you",
        "your",
        "its",
        "it",
        "is",
        "are",
        "ai's",
        "v1",
        "v2",
        "faq",
        "q&a",
        "pdf",
        "html",
        "json",
        "rss",
        "http",
        "https",
        "llama.cpp",
    }
)
_STOP = frozenset(
    {
        "a",
        "an",
        "the",
        "of",
        "and",
        "or",
        "in",
        "on",
        "at",
        "to",
        "for",
        "with",
        "from",
        "by",
        "is",
        "are",
        "was",
        "be",
        "as",
        "its",
        "it",
        "this",
        "that",
        "new",
        "via",
        "into",
        "than",
        "over",
        "about",
        "after",
        "before",
        "how",
        "why",
        "what",
        "who",
        "we",
        "our",
        "you",
        "your",
        "their",
        "they",
        "just",
        "now",
        "today",
        "more",
        "most",
        "can",
        "will",
        "has",
        "have",
        "had",
        "not",
        "no",
        "yes",
    }
)


# Headline words that are capitalised in title case but name nothing in particular.
COMMON = frozenset(
    """introducing introduces introduce announcing announces meet new now here launches launch
    releases release unveils unveil opens open brings adds gains ships raises raise lays
    our your their its my is are be has have gets get goes takes makes lets turns uses
    model models ai assistant agent agents app apps tool tools api inference cloud data
    dataset research researchers study paper benchmark results result update updates
    series round valuation billion million startup company lab labs team teams users
    cheaper cheap faster fast better best smarter smartest first largest biggest most
    frontier performance cost lower price prices today week weekly month year day
    open-source open-weight small large long context video image voice speech code coding
    world worlds browser search chip chips gpu gpus marketplace plugin plugins feature
    generally available test testing beta version three two one four five ten
    introducing: how why what when where who which with from for into over after
    a an the of and or in on at to by as via than about""".split()  # noqa: SIM905
)
_CONCEPTS = frozenset(ZH_EN.values()) | frozenset(EN_SAME.values())


@dataclasses.dataclass(frozen=True)
class Signature:
    """An item as the matcher sees it."""

    url_key: str
    arxiv_id: str
    title_shingles: frozenset[str]
    shingles: frozenset[str]
    models: frozenset[str]
    title_models: frozenset[str]
    names: frozenset[str]
    numbers: frozenset[tuple[str, float]]
    concepts: frozenset[str]
    cjk: bool
    at: datetime.datetime | None

    def keys(self) -> list[int]:
        """The index keys this item is found by (64-bit integers)."""
        labels = [f"url:{self.url_key}"] if self.url_key else []
        if self.arxiv_id:
            labels.append(f"arxiv:{self.arxiv_id}")
        labels.extend(f"model:{name}" for name in sorted(self.models))
        labels.extend(f"name:{name}" for name in sorted(self.names))
        # Across languages the glossary's concepts are what two items share: any two of them.
        concepts = sorted(self.concepts)[:CONCEPT_KEYS_MAX]
        labels.extend(f"concepts:{a}+{b}" for a, b in itertools.combinations(concepts, 2))
        keys = [key_hash(label) for label in labels]
        keys.extend(band_keys(self.shingles))
        return list(dict.fromkeys(keys))


def key_hash(label: str) -> int:
    """A signed 64-bit hash of a label: fits a BigIntegerField on every database."""
    digest = hashlib.blake2b(label.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def band_keys(shingles: frozenset[str]) -> list[int]:
    """The LSH band keys of a shingle set: items sharing one are candidates."""
    if not shingles:
        return []
    # Imported here: datasketch brings scipy (half a second), which every
    # process would pay at start-up (a fetch worker, a web worker) unused.
    from datasketch import MinHash

    minhash = MinHash(num_perm=PERMUTATIONS, seed=SEED)
    minhash.update_batch([shingle.encode() for shingle in sorted(shingles)])
    values = minhash.hashvalues
    keys = []
    for band in range(BANDS):
        rows = values[band * ROWS : (band + 1) * ROWS]
        keys.append(key_hash(f"band:{band}:" + ",".join(str(int(v)) for v in rows)))
    return keys


def text_fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text or "").casefold()


def _stem(word: str) -> str:
    # English plurals and third persons ("releases", "models") meet their stems.
    if len(word) > 4 and word.endswith("es") and not word.endswith("ses"):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def shingles_of(text: str) -> frozenset[str]:
    """Character shingles: bigrams of Chinese (and other CJK) runs, 4-grams of Latin words."""
    out: set[str] = set()
    latin: list[str] = []
    for run in _RUNS.findall(text_fold(text)):
        if _CJK_RE.match(run):
            out.update(run[i : i + 2] for i in range(max(1, len(run) - 1)))
        elif run not in _STOP:
            latin.append(_stem(run))
    joined = " ".join(latin)
    if len(joined) >= 4:
        out.update(joined[i : i + 4] for i in range(len(joined) - 3))
    elif joined:
        out.add(joined)
    return frozenset(out)


def url_key(url: str) -> str:
    """An address with the differences that never change the page taken out."""
    try:
        parts = urlsplit((url or "").strip())
    except ValueError:
        return ""
    host = (parts.hostname or "").lower().removeprefix("www.").removeprefix("m.")
    if not host:
        return ""
    path = parts.path.rstrip("/") or "/"
    for suffix in ("/index.html", "/index.htm", ".html", ".htm", "/amp"):
        if path.endswith(suffix) and len(path) > len(suffix):
            path = path[: -len(suffix)]
    query = "&".join(sorted(pair for pair in parts.query.split("&") if pair))
    return f"{host}{path}" + (f"?{query}" if query else "")


def arxiv_id_of(*texts: str) -> str:
    """The arXiv id (without its version) named by a URL or text, or ""."""
    for text in texts:
        match = _ARXIV.search(text or "")
        if match:
            return match.group(1).lower()
    return ""


def _is_model(token: str) -> bool:
    has_digit = any(c.isdigit() for c in token)
    has_alpha = any(c.isalpha() for c in token)
    if not (has_digit and has_alpha):
        return False
    # 70B, 8k, 50M, 3x, 2nd are sizes, amounts and ordinals, not names.
    return not re.fullmatch(_SIZE, token, re.IGNORECASE)


_SIZE = r"\d+(?:\.\d+)?(?:[kmbt]|x|st|nd|rd|th|gb|tb|ms|h|s|fps|p)?"
_VERSION = re.compile(r"v?\d+(?:\.\d+)*", re.IGNORECASE)


def model_key(text: str) -> str:
    """One spelling of a model name: "DeepSeek-V3.2", "DeepSeek V3.2" → "deepseek-3-2"."""
    key = re.sub(r"[\s._]+", "-", text.lower()).strip("-")
    return re.sub(r"(^|-)v(\d)", r"\1\2", key)


def _is_name(token: str, *, first: bool, title_case: bool) -> bool:
    lowered = token.lower()
    if lowered in _GENERIC or lowered in _STOP or lowered in COMMON or len(token) < 2:
        return False
    if not token[0].isalpha():
        return False
    if any(c.isupper() for c in token[1:]) and any(c.islower() for c in token):
        return True  # OpenAI, DeepSeek, iPhone
    if token.isupper():
        return len(token) >= 3  # NVIDIA, AMD, IBM
    # Capitalised and not a common word: a name (in a title-case headline too).
    return token[0].isupper()


def names_and_models(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The names (labs, companies, people) and model names written in Latin letters."""
    names: set[str] = set()
    models: set[str] = set()
    tokens = _LATIN_TOKEN.findall(text or "")
    for index, token in enumerate(tokens):
        previous = tokens[index - 1] if index else ""
        named_before = (
            bool(previous)
            and (previous[0].isupper() or "-" in previous)
            and previous.lower() not in _STOP
            and previous.lower() not in COMMON
        )
        if _VERSION.fullmatch(token) and named_before and not _is_model(previous):
            # "Gemini 3", "Claude Opus 4.5", "quanta-serve v0.9": a name and its version.
            models.add(model_key(f"{previous}-{token}"))
            continue
        if _is_model(token):
            if token[0].lower() == "v" and named_before:
                models.add(model_key(f"{previous}-{token}"))
            else:
                models.add(model_key(token))
        else:
            names.update(
                part.lower()
                for part in token.split("-")
                if _is_name(part, first=False, title_case=False)
            )
    return frozenset(names), frozenset(models)


# Words after a model name that make it another model, released on its own day
# ("Grok 4 Fast", "Kimi K2 Thinking"). "Pro" is left out: it is how labs name the
# flagship they launch the family with ("Gemini 3 Pro" in the Gemini 3 launch).
VARIANTS = frozenset(
    {
        "fast",
        "heavy",
        "thinking",
        "mini",
        "coder",
        "flash",
        "lite",
        "nano",
        "turbo",
        "max",
        "ultra",
        "instruct",
        "preview",
        "omni",
        "small",
        "medium",
        "large",
    }
)


def variants_of(title: str) -> frozenset[str]:
    """The title's model names with their variant word: "Grok 4 Fast" → "grok-4-fast".

    A model named both bare and with a variant ("Grok 4 and Grok 4 Heavy") keeps both.
    """
    _names, models = names_and_models(title)
    folded = model_key(title)
    out = set()
    for model in models:
        bare = False
        for match in re.finditer(re.escape(model) + r"(?:-([a-z]+))?", folded):
            variant = match.group(1)
            if variant in VARIANTS:
                out.add(f"{model}-{variant}")
            else:
                bare = True
        if bare or not any(m.startswith(f"{model}-") for m in out):
            out.add(model)
    return frozenset(out)


def concepts_of(text: str) -> frozenset[str]:
    """The glossary's concepts an item names, in English, from Chinese or English text."""
    folded = text_fold(text)
    found = {concept for term, concept in ZH_EN.items() if term in folded}
    for word in re.findall(r"[a-z][a-z\-]+", folded):
        stemmed = _stem(word)
        concept = EN_SAME.get(word) or EN_SAME.get(stemmed) or stemmed
        if concept in _CONCEPTS:
            found.add(concept)
    return frozenset(found)


def numbers_of(text: str) -> frozenset[tuple[str, float]]:
    """Amounts of money, percentages and sizes, in one scale and typed:
    "$50M" and "5000万美元" are both ("money", 50000000.0)."""
    out = set()
    for match in _NUMBER.finditer(text_fold(text)):
        currency, digits, unit, currency_after = match.groups()
        unit = (unit or "").lower()
        if not unit and not currency and not currency_after:
            continue
        value = float(digits.replace(",", "")) * _SCALE.get(unit, 1)
        if unit in {"%", "percent"}:
            out.add(("percent", round(value, 6)))
        elif currency or currency_after:
            out.add(("money", float(round(value))))
        else:
            out.add(("size", float(round(value))))
    return frozenset(out)


def numbers_conflict(a: frozenset, b: frozenset) -> bool:
    """Both give money (or percentages) and no amount in common: "$50M" vs "$80M"."""
    for kind in ("money", "percent"):
        mine = {n for n in a if n[0] == kind}
        theirs = {n for n in b if n[0] == kind}
        if mine and theirs and not mine & theirs:
            return True
    return False


def signature_of(
    *, title: str, summary: str = "", url: str = "", at: datetime.datetime | None = None
) -> Signature:
    """Everything the matcher needs from an item's title, summary, address and time."""
    summary = (summary or "")[:SUMMARY_CHARS]
    head = f"{title} {summary}"
    names, models = names_and_models(title)
    summary_names, summary_models = names_and_models(summary)
    return Signature(
        url_key=url_key(url),
        arxiv_id=arxiv_id_of(url, title),
        title_shingles=shingles_of(title),
        shingles=shingles_of(head),
        models=models | summary_models,
        title_models=variants_of(title) or models,
        names=names | summary_names,
        numbers=numbers_of(title),
        concepts=concepts_of(head),
        cjk=len(_CJK_RE.findall(title)) >= max(2, len(title) // 5),
        at=at,
    )
