"""A string-aware scan of CEL source, run before any parser sees the text.

Both parsers (cel-python's LALR grammar for analysis, the Rust ``cel`` crate for execution) are
protected by these checks: the length and bracket-nesting limits are decided here in one linear
pass, so hostile input (megabyte literals, ten thousand open parentheses) never reaches them.
The same tokens drive the decision-table ``?`` placeholder, which must not be confused with the
ternary operator or with a ``?`` inside a string literal.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Literal, NamedTuple

TokenKind = Literal["string", "word", "punct", "space", "comment"]


class Token(NamedTuple):
    kind: TokenKind
    start: int
    end: int


_STRING_START = re.compile(r"(?:[rR][bB]?|[bB][rR]?)?('''|\"\"\"|'|\")")
_WORD = re.compile(r"[A-Za-z0-9_.]+")
_SPACE = re.compile(r"\s+")


def _string_end(text: str, start: int, quote: str, raw: bool) -> int:
    """Index just after the closing quote, or ``len(text)`` for an unterminated literal."""
    i = start
    n = len(text)
    while i < n:
        if not raw and text[i] == "\\":
            i += 2
            continue
        if text.startswith(quote, i):
            return i + len(quote)
        if len(quote) == 1 and text[i] == "\n":
            return i  # single-quoted literals cannot span lines; the parser reports it
        i += 1
    return n


def tokens(text: str) -> Iterator[Token]:
    """Split CEL source into coarse tokens; strings and comments are opaque single tokens.

    Words keep dots (``1.5``, ``a.b``) because only brackets and ``?`` matter to the callers.
    """
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        string = _STRING_START.match(text, i) if ch in "rRbB'\"" else None
        if string is not None:
            raw = "r" in text[i : string.start(1)].lower()
            end = _string_end(text, string.end(), string.group(1), raw)
            yield Token("string", i, end)
            i = end
        elif text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            yield Token("comment", i, end)
            i = end
        elif ch.isspace():
            end = _SPACE.match(text, i).end()  # type: ignore[union-attr]
            yield Token("space", i, end)
            i = end
        elif ch.isalnum() or ch in "_.":
            end = _WORD.match(text, i).end()  # type: ignore[union-attr]
            yield Token("word", i, end)
            i = end
        else:
            yield Token("punct", i, i + 1)
            i += 1


def max_nesting(text: str) -> int:
    """Deepest count of simultaneously open ``(``, ``[`` and ``{`` outside string literals."""
    depth = 0
    deepest = 0
    for tok in tokens(text):
        if tok.kind != "punct":
            continue
        ch = text[tok.start]
        if ch in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in ")]}":
            depth = max(0, depth - 1)
    return deepest


_OPERAND_ENDS = frozenset(")]}")


def placeholder_positions(text: str) -> list[int]:
    """Offsets of every ``?`` standing where an operand is expected (the table cell value).

    A ``?`` after an operand (an identifier, literal, string or closing bracket) is CEL's
    ternary operator; a ``?`` at the start, after an operator, ``(``, ``[``, ``,`` or the word
    ``in`` is the placeholder. CEL never starts an operand with ``?``, so this is unambiguous.
    """
    found: list[int] = []
    previous: Token | None = None
    for tok in tokens(text):
        if tok.kind in ("space", "comment"):
            continue
        if tok.kind == "punct" and text[tok.start] == "?" and _expects_operand(text, previous):
            found.append(tok.start)
        previous = tok
    return found


def _expects_operand(text: str, previous: Token | None) -> bool:
    if previous is None:
        return True
    if previous.kind == "string":
        return False
    if previous.kind == "word":
        return text[previous.start : previous.end] == "in"
    return text[previous.start] not in _OPERAND_ENDS


def replace_positions(text: str, positions: list[int], replacement: str) -> str:
    """``text`` with the one-character tokens at ``positions`` replaced by ``replacement``."""
    parts: list[str] = []
    last = 0
    for pos in positions:
        parts.append(text[last:pos])
        parts.append(replacement)
        last = pos + 1
    parts.append(text[last:])
    return "".join(parts)


def single_token(text: str) -> Token | None:
    """The only non-space token of ``text`` (used to recognise a bare literal cell)."""
    found = [tok for tok in tokens(text) if tok.kind not in ("space", "comment")]
    return found[0] if len(found) == 1 else None


def split_outside_strings(text: str, separator: str) -> list[str] | None:
    """Split ``text`` at the single top-level occurrence of ``separator`` (for ``lo..hi``)."""
    hits = [
        tok.start
        for tok in tokens(text)
        if tok.kind == "word" and separator in text[tok.start : tok.end]
    ]
    if len(hits) != 1:
        return None
    for tok in tokens(text):
        if tok.start == hits[0]:
            word = text[tok.start : tok.end]
            at = tok.start + word.index(separator)
            if word.count(separator) != 1:
                return None
            return [text[:at], text[at + len(separator) :]]
    return None
