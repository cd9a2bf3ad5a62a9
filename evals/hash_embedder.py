"""A feature-hashed bag-of-words embedder: deterministic vectors at no model cost.

Benchmarks build very large indexes with it (MiniLM would take hours on 2 cores), and tests
build fuzzed indexes in milliseconds; only the ranking differs from MiniLM's (lexical).
"""

from __future__ import annotations

import re
import zlib

import numpy as np


class HashEmbedder:
    """Each lower-cased word hashed to a signed coordinate, 384 of them (MiniLM's); L2-normalized."""

    name = "hashed-bow-384"
    dim = 384

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """One vector per text (a text with no word gets the zero vector)."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                h = zlib.crc32(word.encode())
                out[row, h % self.dim] += 1.0 if h & 1 << 31 else -1.0
        out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)
        return out.tolist()

    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""
        return self.embed_documents([text])[0]
