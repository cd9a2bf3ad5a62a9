"""What one build run did, as `Builder.run` returns it and its progress callback sees it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class BuildReport:
    """What one `index` run did."""

    documents_seen: int = 0
    documents_indexed: int = 0
    documents_skipped: int = 0
    # documents not indexed because the same content is indexed under another id: (id, that id)
    already_indexed: list[tuple[str, str]] = field(default_factory=list)
    documents_deleted: int = 0
    passages: int = 0
    units: int = 0
    proposed: int = 0
    ungrounded: int = 0
    invalid: int = 0
    model_calls: int = 0
    cache_hits: int = 0
    parsed: int = 0
    parse_cache_hits: int = 0
    # passages the parser could not read, by reason (kept as passages, without units)
    skipped: Counter[str] = field(default_factory=Counter)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    failed_passages: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    # what was indexed other than as written (a run with no space cut to its opening)
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    in_flight: int = 0  # model requests under way now
    peak_in_flight: int = 0

    @property
    def grounded_share(self) -> float | None:
        """Share of proposed units that survived grounding."""
        return round(self.units / self.proposed, 3) if self.proposed else None


# Called after each passage with (passages done, passages to do, running report).
Progress = Callable[[int, int, BuildReport], None]
