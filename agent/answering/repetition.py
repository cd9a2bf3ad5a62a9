"""Free text that loops: cut where it starts repeating itself (a small model's failure mode)."""

from __future__ import annotations

import re

from resin.indexes.units import normalize


def cut_repetition(text: str, min_words: int = 6) -> tuple[str, bool]:
    """The text up to where it starts repeating itself, and whether it did.

    A loop is a run of words said again and again right after itself, `min_words`+ words in all
    ("a b c a b c", "[2] [3] [2] [3] [2] [3]"), or a sentence of three or more words said again
    anywhere later; the text is cut before the first repeat.
    """
    words = text.split()[:400]  # a short answer's guard: a longer text is cut at 400 words anyway
    for i in range(len(words)):
        for n in range(1, (len(words) - i) // 2 + 1):
            times = max(2, -(-min_words // n))
            if i + n * times <= len(words) and all(
                words[i + k * n : i + (k + 1) * n] == words[i : i + n] for k in range(1, times)
            ):
                return " ".join(words[: i + n]), True
    seen: set[str] = set()
    for match in re.finditer(r"[^.!?\n]+[.!?\n]?", text):
        key = normalize(match.group(0))
        if len(key.split()) >= 3:
            if key in seen:
                return text[: match.start()].rstrip(), True
            seen.add(key)
    return text, False
