"""Plain text from feed HTML, the language of a text, and extractive summaries."""

import html
import re

import nh3

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LETTER = re.compile(r"[^\W\d_]")
_SPACE = re.compile(r"\s+")
# A sentence ends at Chinese or Latin end punctuation (Latin: followed by a space).
_SENTENCE_END = re.compile(r"(?<=[。！？；])|(?<=[.!?])\s+(?=\S)")


def plain_text(value: str) -> str:
    """Text with every HTML tag removed, entities decoded and whitespace collapsed."""
    # Block-level ends become spaces so words of two paragraphs do not run together.
    spaced = re.sub(r"<(/p|br|/li|/h\d|/div)\b[^>]*>", " ", value or "", flags=re.IGNORECASE)
    stripped = nh3.clean(spaced, tags=set(), strip_comments=True)
    # nh3 leaves entities encoded; once decoded, a "&lt;b&gt;" must not become a tag.
    text = html.unescape(stripped)
    text = nh3.clean(text, tags=set()) if "<" in text else text
    return _SPACE.sub(" ", html.unescape(text)).strip()


def text_language(text: str) -> str:
    """ "zh-hans" when most letters of `text` are Chinese characters, else "en"."""
    letters = _LETTER.findall(text)
    if not letters:
        return "en"
    cjk = sum(1 for char in letters if _CJK.match(char))
    # A Chinese sentence quoting an English product name is still Chinese.
    return "zh-hans" if cjk * 3 >= len(letters) else "en"


def sentences(text: str) -> list[str]:
    """The sentences of a plain text, in order."""
    return [part.strip() for part in _SENTENCE_END.split(text) if part and part.strip()]


def extractive_summary(text: str, *, limit: int) -> str:
    """The leading whole sentences of `text` that fit in `limit` characters.

    A first sentence longer than the limit is cut at a word (or, in Chinese,
    a character) and ends with an ellipsis.
    """
    text = plain_text(text)
    if len(text) <= limit:
        return text
    chosen: list[str] = []
    length = 0
    for sentence in sentences(text):
        extra = len(sentence) + (1 if chosen else 0)
        if length + extra > limit:
            break
        chosen.append(sentence)
        length += extra
    if chosen:
        return " ".join(chosen)
    cut = text[: limit - 1]
    if text_language(cut) == "en" and " " in cut and not text[limit - 1].isspace():
        cut = cut.rsplit(" ", 1)[0]  # drop the word the cut went through
    return cut.rstrip(" ,;:，、") + "…"
