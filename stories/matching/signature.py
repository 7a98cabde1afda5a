"""What the matcher knows of one item: pure functions from text to shingles, keys and names.

No ORM here, so the evaluation command, the index and the tests all read an
item the same way.
"""

import dataclasses
import datetime
import hashlib
import re
import unicodedata
from urllib.parse import urlsplit

from datasketch import MinHash

# MinHash permutations and how they are cut into LSH bands (BANDS × ROWS = PERMUTATIONS).
# Two rows a band finds pairs of Jaccard 0.3 nine times in ten and 0.1 a quarter
# of the time; the verdict, not the index, decides.
PERMUTATIONS = 48
BANDS = 24
ROWS = PERMUTATIONS // BANDS
SEED = 14
SUMMARY_CHARS = 300

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
    r"(?:[$€£¥]\s*)?(\d+(?:[.,]\d+)?)\s*(%|percent|billion|million|thousand|bn|[kmb]\b|亿|万)?",
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


@dataclasses.dataclass(frozen=True)
class Signature:
    """An item as the matcher sees it."""

    url_key: str
    arxiv_id: str
    title_shingles: frozenset[str]
    shingles: frozenset[str]
    models: frozenset[str]
    names: frozenset[str]
    numbers: frozenset[float]
    cjk: bool
    at: datetime.datetime | None

    def keys(self) -> list[int]:
        """The index keys this item is found by (64-bit integers)."""
        labels = [f"url:{self.url_key}"] if self.url_key else []
        if self.arxiv_id:
            labels.append(f"arxiv:{self.arxiv_id}")
        labels.extend(f"model:{name}" for name in sorted(self.models))
        labels.extend(f"name:{name}" for name in sorted(self.names))
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
    return not re.fullmatch(r"\d+(?:\.\d+)?(?:[kmbt]|x|st|nd|rd|th|gb|tb|ms|h)?", token, re.I)


def _is_name(token: str, *, first: bool, title_case: bool) -> bool:
    if token.lower() in _GENERIC or token.lower() in _STOP or len(token) < 2:
        return False
    if any(c.isupper() for c in token[1:]) and any(c.islower() for c in token):
        return True  # OpenAI, DeepSeek, iPhone
    if token.isupper() and token.isalpha():
        return len(token) >= 3 or token in {"XAI"}  # NVIDIA, AMD, IBM
    # A capital in the middle of a sentence-case headline.
    return token[0].isupper() and not first and not title_case


def names_and_models(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The names (labs, companies, people) and model names written in Latin letters."""
    names: set[str] = set()
    models: set[str] = set()
    for sentence in re.split(r"(?<=[.!?。！？:：])\s*", text or ""):
        tokens = _LATIN_TOKEN.findall(sentence)
        words = [t for t in tokens if t[0].isalpha() and t.lower() not in _STOP]
        title_case = len(words) >= 3 and sum(w[0].isupper() for w in words) / len(words) > 0.6
        # After a CJK character a capital does not start a sentence.
        starts_latin = bool(re.match(r"\s*[A-Za-z]", sentence))
        for index, token in enumerate(tokens):
            lowered = token.lower()
            if _is_model(token):
                models.add(lowered.replace(".", "-").replace("--", "-"))
            elif _is_name(token, first=index == 0 and starts_latin, title_case=title_case):
                names.add(lowered)
    return frozenset(names), frozenset(models)


def numbers_of(text: str) -> frozenset[float]:
    """Amounts and percentages, in one scale ("$50M", "5000万美元" → 50000000.0)."""
    out = set()
    for match in _NUMBER.finditer(text_fold(text)):
        unit = (match.group(2) or "").lower()
        if not unit:
            continue
        value = float(match.group(1).replace(",", ""))
        scaled = value * _SCALE[unit]
        out.add(round(scaled, 6) if unit in {"%", "percent"} else float(round(scaled)))
    return frozenset(out)


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
        names=names | summary_names,
        numbers=numbers_of(title),
        cjk=len(_CJK_RE.findall(title)) >= max(2, len(title) // 5),
        at=at,
    )
