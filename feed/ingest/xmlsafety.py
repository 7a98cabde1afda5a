"""Refusing XML bombs before any parser sees them.

A feed may declare entities in its DTD. Plain text entities are harmless
and do occur in real feeds (`<!ENTITY id "tag:example.com,">`), so they are
allowed; everything a bomb needs is refused: external entities (SYSTEM,
PUBLIC: a way to read files or reach the network), parameter entities,
entities that refer to other entities (the "billion laughs"), and
declarations whose expansion would exceed a budget however they are used
(the "quadratic blowup": one large entity referred to many times). The scan
is linear in the size of the body, which the fetcher has already bounded.
"""

import codecs
import re

from feed.ingest import wording
from feed.ingest.wording import recorded

# How much text all entity references in a document may expand to.
MAX_EXPANSION = 1024 * 1024
MAX_DECLARATIONS = 100

_DECLARATION = re.compile(r"<!ENTITY\b(.*?)>", re.IGNORECASE | re.DOTALL)
_GENERAL_INTERNAL = re.compile(r"""^\s+([\w.:-]+)\s+(?:"([^"]*)"|'([^']*)')\s*$""", re.DOTALL)
_CHARACTER_REFERENCE = re.compile(r"&#(?:x[0-9a-fA-F]+|[0-9]+);")

_BOMS = (
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
)
# Without a BOM, the first "<" tells a wide encoding apart (XML 1.0, appendix F).
_WIDE_STARTS = (
    (b"\x00\x00\x00<", "utf-32-be"),
    (b"<\x00\x00\x00", "utf-32-le"),
    (b"\x00<\x00?", "utf-16-be"),
    (b"<\x00?\x00", "utf-16-le"),
)


class UnsafeXMLError(ValueError):
    """The document declares entities we refuse to expand."""


def _as_text(body: bytes) -> str:
    """The body as text, enough to find declarations (ASCII-compatible or UTF-16/32)."""
    for bom, encoding in _BOMS:
        if body.startswith(bom):
            return body[len(bom) :].decode(encoding, "replace")
    for start, encoding in _WIDE_STARTS:
        if body.startswith(start):
            return body.decode(encoding, "replace")
    # Every other encoding a feed may use writes "<!ENTITY" in ASCII bytes.
    return body.decode("latin-1")


def xml_check_safe(body: bytes) -> None:
    """Raise UnsafeXMLError if the document's entity declarations could be a bomb."""
    if b"ENTITY" not in body.upper() and b"\x00" not in body[:4]:
        return
    text = _as_text(body)
    declarations = _DECLARATION.findall(text)
    if not declarations:
        return
    if len(declarations) > MAX_DECLARATIONS:
        raise UnsafeXMLError(recorded(wording.ENTITIES_MANY, count=len(declarations)))
    budget = MAX_EXPANSION
    for declaration in declarations:
        if declaration.lstrip().startswith("%"):
            raise UnsafeXMLError(recorded(wording.ENTITY_PARAMETER))
        match = _GENERAL_INTERNAL.match(declaration)
        if not match:
            if re.search(r"\b(SYSTEM|PUBLIC)\b", declaration):
                raise UnsafeXMLError(recorded(wording.ENTITY_EXTERNAL))
            raise UnsafeXMLError(recorded(wording.ENTITY_UNREADABLE))
        name = match.group(1)
        value = match.group(2) if match.group(2) is not None else match.group(3)
        if "&" in _CHARACTER_REFERENCE.sub("", value) or "%" in value or "<" in value:
            raise UnsafeXMLError(recorded(wording.ENTITY_NESTED, name=repr(name)))
        uses = text.count(f"&{name};")
        budget -= uses * len(value)
        if budget < 0:
            raise UnsafeXMLError(recorded(wording.ENTITIES_TOO_LARGE))
