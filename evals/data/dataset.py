"""What every loader returns: `Question`s and a `Dataset`, or a `DataError` naming the file.

The runner, the report and the benchmarks read only these types, whatever the format.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from resin.agent.language.choices import with_options
from resin.indexes.documents import Document


class DataError(ValueError):
    """A data file that cannot be read as a benchmark; the message names the file and problem."""


@dataclass
class Question:
    """One benchmark question with its answers and gold evidence."""

    id: str
    question: str
    answers: list[str]
    choices: list[str] | None = None
    answer_choice: int | None = None
    gold_keys: list[str] = field(default_factory=list)
    gold_sentence_ids: list[str] = field(default_factory=list)
    type: str = ""
    own_keys: list[str] = field(default_factory=list)
    chain: dict[str, Any] = field(
        default_factory=dict
    )  # a gold decomposition, where the set has one

    @property
    def asked(self) -> str:
        """What every system is asked: the question, with its lettered choices if it has them."""
        return with_options(self.question, self.choices) if self.choices else self.question


@dataclass
class Dataset:
    """Questions, the retrieval corpus, and how the corpus maps back to dataset sentences."""

    name: str
    path: str
    format: str
    questions: list[Question]
    documents: list[Document]
    passage_chars: int
    doc_sentences: dict[str, list[str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def has_choices(self) -> bool:
        """Whether any question is multiple choice."""
        return any(q.choices for q in self.questions)

    @property
    def has_gold_passages(self) -> bool:
        """Whether any question names gold passages."""
        return any(q.gold_keys for q in self.questions)

    @property
    def has_gold_plans(self) -> bool:
        """Whether any question carries a gold decomposition (2Wiki triples, MuSiQue steps)."""
        return any(
            q.chain.get("evidence_triples") or q.chain.get("decomposition") for q in self.questions
        )

    @property
    def has_gold_sentences(self) -> bool:
        """Whether any question names gold sentences."""
        return any(q.gold_sentence_ids for q in self.questions)
