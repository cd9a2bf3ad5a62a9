"""Benchmark loaders: every format becomes `Question`s plus a corpus of `Document`s.

Formats, detected by `load_dataset`:

- the normalized JSONL schema (HotpotQA, QASC and any other multi-hop set written in it): the
  corpus is the union of the paragraphs of the questions in the run, deduplicated by title + text
  (HippoRAG-style); a question without paragraphs (QASC) draws on a fact pool instead: `--corpus`,
  else a `*fact_pool*.jsonl` beside the data file, else the facts written under `chain`;
- HotpotQA's official JSON (a list of `{_id, question, answer, context, supporting_facts}`);
- HolisQA (`qa.jsonl` with `sentences.jsonl`, optionally `articles.jsonl`, in the same folder):
  one document per article, its text the article's sentences.

A gold passage is named by the id of its document (`Question.gold_keys`). For HotpotQA the
document id is the paragraph title (titles are unique in its union corpora; a title that repeats
with another text gets `#hash`), so the gold key is the title, as in the official evaluation.

Every document's text is its sentences separated by blank lines, so each dataset sentence is one
block for `indexes.documents.split_sentences`; `sentence_index` maps the index's sentence ids back
to dataset sentence ids exactly, whatever `passage_chars` groups them into.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.questions import with_options
from indexes.documents import (
    DEFAULT_PASSAGE_CHARS,
    Document,
    content_hash,
    make_passages,
    split_sentences,
)

# A paragraph corpus keeps one paragraph per passage (the unit HippoRAG-style recall counts), so
# passage_chars is at least the longest paragraph; HolisQA articles are cut into sentence-aligned
# passages of the index's default size.


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
    def has_gold_sentences(self) -> bool:
        """Whether any question names gold sentences."""
        return any(q.gold_sentence_ids for q in self.questions)


def _clean(text: str) -> str:
    return " ".join(str(text).split())


def _read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()
    except OSError as exc:
        raise DataError(f"{path}: cannot read ({exc.strerror})") from exc
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(f"{path}:{lineno}: malformed JSON ({exc.msg})") from exc
        if not isinstance(record, dict):
            raise DataError(f"{path}:{lineno}: expected a JSON object")
        yield record


class _Corpus:
    """Documents deduplicated by (title, text), with ids that are titles where titles are unique."""

    def __init__(self) -> None:
        self.docs: dict[tuple[str, str], tuple[str, list[str]]] = {}
        self.ids: dict[tuple[str, str], str] = {}

    def add(self, title: str, text: str, sentences: list[str] | None) -> tuple[str, str]:
        key = (_clean(title), _clean(text))
        if key not in self.docs:
            self.docs[key] = (text, list(sentences or []))
        return key

    def assign_ids(self) -> None:
        by_title: dict[str, int] = {}
        for title, _ in self.docs:
            by_title[title] = by_title.get(title, 0) + 1
        for key in self.docs:
            title, text = key
            unique = title and by_title[title] == 1
            self.ids[key] = (
                title if unique else f"{title or 'doc'}#{content_hash(title, text, length=8)}"
            )

    def documents(
        self, keep: set[str] | None = None
    ) -> tuple[list[Document], dict[str, list[str]]]:
        docs, sentences = [], {}
        for key, (text, sents) in self.docs.items():
            doc_id = self.ids[key]
            if keep is not None and doc_id not in keep:
                continue
            doc, sids = _document(
                doc_id, key[0], text, sents, [f"{doc_id}::{i}" for i in range(len(sents))]
            )
            docs.append(doc)
            if sids:
                sentences[doc_id] = sids
        return docs, sentences


def _document(
    doc_id: str, title: str, text: str, sentences: list[str], sentence_ids: list[str]
) -> tuple[Document, list[str]]:
    """A document whose blocks are its sentences; the dataset ids of those blocks, in order."""
    pairs = [(sid, _clean(s)) for sid, s in zip(sentence_ids, sentences, strict=True) if _clean(s)]
    if pairs:
        body = "\n\n".join(s for _, s in pairs)
        return Document(id=doc_id, title=title, text=body), [sid for sid, _ in pairs]
    return Document(id=doc_id, title=title, text=_clean(text)), []


def sentence_index(
    documents: Iterable[Document], doc_sentences: dict[str, list[str]], passage_chars: int
) -> dict[str, str]:
    """Index sentence id (`<passage id>:<i>`) → dataset sentence id, for documents that have them.

    `split_sentences` cuts each blank-line block (one dataset sentence) into pieces and
    `make_passages` groups the pieces in order, so the k-th piece of the document belongs to the
    dataset sentence whose block produced it.
    """
    mapping: dict[str, str] = {}
    for doc in documents:
        sids = doc_sentences.get(doc.id)
        if not sids:
            continue
        owners: list[str] = []
        for sid, block in zip(sids, doc.text.split("\n\n"), strict=False):
            owners.extend([sid] * len(split_sentences(block)))
        pieces = [s.id for p in make_passages(doc, passage_chars) for s in p.sentences]
        if len(pieces) != len(owners):
            continue  # cannot align (should not happen): no sentence credit for this document
        mapping.update(zip(pieces, owners, strict=True))
    return mapping


# --- sampling and subsets ----------------------------------------------------------------------
def sample(questions: list[Question], limit: int | None, seed: int) -> list[Question]:
    """A seeded random `limit` of the questions, in file order (all of them without a limit)."""
    if limit is None or limit >= len(questions):
        return list(questions)
    chosen = set(random.Random(seed).sample(range(len(questions)), limit))
    return [q for i, q in enumerate(questions) if i in chosen]


def _subset_docs(
    gold: list[str], pool: list[str], seed: int, near: Sequence[str] = ()
) -> tuple[set[str], int]:
    """The gold documents plus as many distractors (seeded): first from `near`, then the pool.

    `near` holds the sampled questions' own non-gold passages (HotpotQA's distractor paragraphs,
    retrieved to resemble the gold ones), so the subset keeps the hard negatives.
    """
    gold_set = set(gold)
    rng = random.Random(seed)
    near_left = sorted(set(near) - gold_set)
    rng.shuffle(near_left)
    rest = sorted(set(pool) - gold_set - set(near_left))
    rng.shuffle(rest)
    extra = (near_left + rest)[: len(gold_set)]
    return gold_set | set(extra), len(extra)


# --- normalized JSONL ---------------------------------------------------------------------------
def _choices(record: dict[str, Any]) -> tuple[list[str] | None, int | None]:
    raw = record.get("choices")
    if not raw:
        return None, None
    texts, labels = [], []
    for i, choice in enumerate(raw):
        if isinstance(choice, dict):
            texts.append(str(choice.get("text", "")))
            labels.append(str(choice.get("label", chr(ord("A") + i))))
        else:
            texts.append(str(choice))
            labels.append(chr(ord("A") + i))
    key = record.get("answer_key")
    answer = labels.index(str(key)) if key is not None and str(key) in labels else None
    if answer is None:
        answers = [_clean(a).lower() for a in record.get("answers") or []]
        answer = next((i for i, t in enumerate(texts) if _clean(t).lower() in answers), None)
    return texts, answer


def _has_sentence(sentences: list[str], i: int) -> bool:
    return 0 <= i < len(sentences) and bool(str(sentences[i]).strip())


def _answers(record: dict[str, Any]) -> list[str]:
    raw = record.get("answers")
    if raw is None:
        raw = record.get("answer")
    if raw is None:
        return []
    return [str(a) for a in (raw if isinstance(raw, list) else [raw])]


def _find_pool(path: Path) -> Path | None:
    for candidate in sorted(path.parent.glob("*.jsonl")):
        if candidate != path and "fact_pool" in candidate.name:
            return candidate
    return None


def load_normalized(
    path: Path,
    limit: int | None = None,
    seed: int = 0,
    subset: bool = False,
    corpus: Path | None = None,
) -> Dataset:
    """Load a file in the normalized schema (see the module docstring for the corpus rules)."""
    return _from_records(list(_read_jsonl(path)), path, limit, seed, subset, corpus)


def _from_records(
    records: list[dict[str, Any]],
    path: Path,
    limit: int | None,
    seed: int,
    subset: bool,
    corpus: Path | None,
) -> Dataset:
    if not records:
        raise DataError(f"{path}: no records")
    for i, r in enumerate(records, 1):
        if not r.get("question") or not r.get("id"):
            raise DataError(f"{path}: record {i} lacks 'id' or 'question'")
    uses_pool = all(not r.get("paragraphs") for r in records)
    if uses_pool:
        return _load_pooled(path, records, limit, seed, subset, corpus)
    union = _Corpus()
    per_question: list[
        tuple[list[tuple[str, str]], list[tuple[str, str]], list[tuple[str, int]]]
    ] = []
    for r in records:
        keys, gold = [], []
        for p in r.get("paragraphs") or []:
            title = str(p.get("title") or p.get("pid") or "")
            sents = p.get("sentences")
            text = str(p.get("text") or "".join(sents or []))
            if not text.strip():
                continue
            key = union.add(title, text, [str(s) for s in sents] if sents else None)
            keys.append(key)
            if p.get("is_supporting"):
                gold.append(key)
        facts = [
            (str(f[0]), int(f[1]))
            for f in r.get("supporting_facts") or []
            if isinstance(f, list | tuple) and len(f) == 2 and isinstance(f[1], int)
        ]
        if not gold and facts:  # no is_supporting flags: the supporting facts' titles
            titles = {t for t, _ in facts}
            gold = [k for k in keys if k[0] in titles]
        per_question.append((keys, gold, facts))
    union.assign_ids()
    questions = []
    for r, (keys, gold, facts) in zip(records, per_question, strict=True):
        choices, answer = _choices(r)
        own = [union.ids[k] for k in keys]
        gold_ids = list(dict.fromkeys(union.ids[k] for k in gold))
        # gold sentences only where the paragraph carries its own sentence list to index into
        by_title = {k[0]: k for k in gold} or {k[0]: k for k in keys}
        gold_sents = [
            f"{union.ids[by_title[t]]}::{i}"
            for t, i in facts
            if t in by_title and _has_sentence(union.docs[by_title[t]][1], i)
        ]
        questions.append(
            Question(
                id=str(r["id"]),
                question=_clean(r["question"]),
                answers=_answers(r),
                choices=choices,
                answer_choice=answer,
                gold_keys=gold_ids,
                gold_sentence_ids=gold_sents,
                type=str(r.get("type") or ""),
                own_keys=list(dict.fromkeys(own)),
            )
        )
    chosen = sample(questions, limit, seed)
    own_keys = [k for q in chosen for k in q.own_keys]
    if subset:
        chosen_gold = [k for q in chosen for k in (q.gold_keys or q.own_keys)]
        every = [k for q in questions for k in q.own_keys]
        keep, extra = _subset_docs(chosen_gold, every, seed, own_keys)
        note = (
            f"subset: the {len(set(chosen_gold))} gold paragraphs of the {len(chosen)} sampled questions "
            f"plus {extra} distractor paragraphs, drawn first from those questions' own non-gold "
            f"paragraphs, then from the file's other questions (seed {seed})"
        )
    else:
        keep = set(own_keys)
        note = (
            f"corpus: union of the paragraphs of the {len(chosen)} questions in the run, "
            "deduplicated by title + text"
        )
    docs, sentences = union.documents(keep)
    # one paragraph = one passage: passage_chars at least the longest paragraph
    longest = max((len(d.text) for d in docs), default=0)
    return Dataset(
        name=str(records[0].get("dataset") or path.stem),
        path=str(path),
        format="normalized",
        questions=chosen,
        documents=docs,
        passage_chars=max(DEFAULT_PASSAGE_CHARS, longest + 1),
        doc_sentences=sentences,
        notes=[note],
    )


def _load_pooled(
    path: Path,
    records: list[dict[str, Any]],
    limit: int | None,
    seed: int,
    subset: bool,
    corpus: Path | None,
) -> Dataset:
    """Questions without paragraphs (QASC): gold = supporting fact ids, corpus = a fact pool."""
    pool_path = corpus or _find_pool(path)
    facts: dict[str, str] = {}
    source = ""
    if pool_path is not None:
        for rec in _read_jsonl(pool_path):
            fid = rec.get("fact_id") or rec.get("id")
            if fid is not None and str(rec.get("text") or "").strip():
                facts[str(fid)] = str(rec["text"])
        source = f"the fact pool {pool_path.name} ({len(facts)} facts)"
    else:  # no pool: the facts written under each question's chain, named by supporting_facts
        for r in records:
            ids = [str(f[0]) for f in r.get("supporting_facts") or [] if f]
            texts = [
                str(v)
                for k, v in sorted((r.get("chain") or {}).items())
                if k.startswith("fact") and isinstance(v, str)
            ]
            for fid, text in zip(ids, texts, strict=False):
                facts.setdefault(fid, text)
        source = f"the {len(facts)} facts written under the questions' 'chain' (no fact pool found)"
    if not facts:
        raise DataError(f"{path}: questions have no paragraphs and no fact pool was found")
    questions = []
    for r in records:
        choices, answer = _choices(r)
        gold = [str(f[0]) for f in r.get("supporting_facts") or [] if f and str(f[0]) in facts]
        questions.append(
            Question(
                id=str(r["id"]),
                question=_clean(r["question"]),
                answers=_answers(r),
                choices=choices,
                answer_choice=answer,
                gold_keys=list(dict.fromkeys(gold)),
                gold_sentence_ids=[f"{g}::0" for g in dict.fromkeys(gold)],
                type=str(r.get("type") or ""),
                own_keys=list(dict.fromkeys(gold)),
            )
        )
    chosen = sample(questions, limit, seed)
    if subset:
        own = [k for q in chosen for k in q.own_keys]
        keep, extra = _subset_docs(own, list(facts), seed)
        notes = [
            f"subset: the {len(set(own))} gold facts of the {len(chosen)} sampled questions plus "
            f"{extra} random facts from {source} (seed {seed})"
        ]
    else:
        keep = set(facts)
        notes = [f"corpus: {source}"]
    docs, sentences = [], {}
    for fid, text in facts.items():
        if fid in keep:
            doc, sids = _document(fid, "", text, [text], [f"{fid}::0"])
            docs.append(doc)
            sentences[fid] = sids
    longest = max((len(d.text) for d in docs), default=0)
    return Dataset(
        name=str(records[0].get("dataset") or path.stem),
        path=str(path),
        format="normalized+pool",
        questions=chosen,
        documents=docs,
        passage_chars=max(DEFAULT_PASSAGE_CHARS, longest + 1),
        doc_sentences=sentences,
        notes=notes,
    )


# --- HotpotQA official JSON ---------------------------------------------------------------------
def official_to_normalized(item: dict[str, Any]) -> dict[str, Any]:
    """One official HotpotQA record as a normalized-schema record."""
    gold_titles = {str(f[0]) for f in item.get("supporting_facts") or []}
    paragraphs = [
        {
            "pid": f"{item.get('_id')}#{i}",
            "title": str(title),
            "text": "".join(sentences),
            "sentences": list(sentences),
            "is_supporting": str(title) in gold_titles,
        }
        for i, (title, sentences) in enumerate(item.get("context") or [])
    ]
    answer = item.get("answer")
    return {
        "id": str(item.get("_id")),
        "dataset": "hotpotqa",
        "question": item.get("question"),
        "answers": [] if answer is None else [str(answer)],
        "paragraphs": paragraphs,
        "supporting_facts": [[str(t), int(i)] for t, i in item.get("supporting_facts") or []],
        "type": item.get("type", ""),
    }


def load_hotpot_official(
    path: Path, limit: int | None = None, seed: int = 0, subset: bool = False
) -> Dataset:
    """Load HotpotQA's official JSON by converting it to the normalized schema in memory."""
    try:
        items = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise DataError(f"{path}: not a HotpotQA JSON file ({exc})") from exc
    if not isinstance(items, list) or not all(isinstance(i, dict) and "_id" in i for i in items):
        raise DataError(f"{path}: expected a list of objects with '_id' (HotpotQA's format)")
    records = [official_to_normalized(i) for i in items]
    data = _from_records(records, path, limit, seed, subset, None)
    data.format = "hotpotqa-official"
    return data


# --- HolisQA ------------------------------------------------------------------------------------
def load_holisqa(
    path: Path, limit: int | None = None, seed: int = 0, subset: bool = False
) -> Dataset:
    """HolisQA: `qa.jsonl` (or its folder) with `sentences.jsonl` beside it; one doc per article."""
    folder = path if path.is_dir() else path.parent
    qa_path = path if path.is_file() else folder / "qa.jsonl"
    sent_path = folder / "sentences.jsonl"
    if not sent_path.exists():
        raise DataError(f"{qa_path}: HolisQA needs sentences.jsonl beside it")
    by_article: dict[str, list[tuple[int, str, str]]] = {}
    article_of: dict[str, str] = {}
    for rec in _read_jsonl(sent_path):
        aid, sid = str(rec["article_id"]), str(rec["sentence_id"])
        by_article.setdefault(aid, []).append((int(rec.get("sent_idx", 0)), sid, str(rec["text"])))
        article_of[sid] = aid
    titles: dict[str, str] = {}
    if (folder / "articles.jsonl").exists():
        for rec in _read_jsonl(folder / "articles.jsonl"):
            titles[str(rec["article_id"])] = _clean(rec.get("title") or "")
    questions = []
    for rec in _read_jsonl(qa_path):
        sids = [str(s) for s in rec.get("context_sentence_ids") or []]
        gold = list(dict.fromkeys(article_of[s] for s in sids if s in article_of))
        questions.append(
            Question(
                id=str(rec.get("qa_id") or rec.get("id")),
                question=_clean(rec["question"]),
                answers=_answers(rec),
                gold_keys=gold,
                gold_sentence_ids=sids,
                type=str(rec.get("category") or ""),
                own_keys=gold,
            )
        )
    if not questions:
        raise DataError(f"{qa_path}: no questions")
    chosen = sample(questions, limit, seed)
    if subset:
        own = [k for q in chosen for k in q.own_keys]
        keep, extra = _subset_docs(own, list(by_article), seed)
        notes = [
            f"subset: the {len(set(own))} gold articles of the {len(chosen)} sampled questions "
            f"plus {extra} random other articles (seed {seed})"
        ]
    else:
        keep = set(by_article)
        notes = [f"corpus: all {len(by_article)} articles of {sent_path.parent.name}"]
    docs, sentences = [], {}
    for aid, rows in by_article.items():
        if aid not in keep:
            continue
        rows.sort()
        doc, ids = _document(
            aid, titles.get(aid) or aid, "", [t for _, _, t in rows], [s for _, s, _ in rows]
        )
        if doc.text.strip():
            docs.append(doc)
            sentences[aid] = ids
    return Dataset(
        name=f"holisqa-{folder.name}",
        path=str(qa_path),
        format="holisqa",
        questions=chosen,
        documents=docs,
        passage_chars=DEFAULT_PASSAGE_CHARS,
        doc_sentences=sentences,
        notes=notes,
    )


# --- dispatch -----------------------------------------------------------------------------------
def detect_format(path: Path) -> str:
    """'holisqa', 'hotpotqa-official' or 'normalized', from the file name and first bytes."""
    folder = path if path.is_dir() else path.parent
    if (path.is_dir() or path.name == "qa.jsonl") and (folder / "sentences.jsonl").exists():
        return "holisqa"
    if path.is_dir():
        raise DataError(f"{path}: a folder is only read as HolisQA (qa.jsonl + sentences.jsonl)")
    if not path.exists():
        raise DataError(f"{path}: no such file")
    with path.open("r", encoding="utf-8-sig") as fh:
        head = fh.read(4096).lstrip()
    if head.startswith("["):
        return "hotpotqa-official"
    first = head.splitlines()[0] if head else ""
    if '"qa_id"' in first and '"context_sentence_ids"' in first:
        return "holisqa"
    return "normalized"


def load_dataset(
    path: str | Path,
    limit: int | None = None,
    seed: int = 0,
    subset: bool = False,
    corpus: str | Path | None = None,
) -> Dataset:
    """Load any supported benchmark file (see the module docstring)."""
    path = Path(path)
    fmt = detect_format(path)
    if fmt == "holisqa":
        return load_holisqa(path, limit, seed, subset)
    if fmt == "hotpotqa-official":
        return load_hotpot_official(path, limit, seed, subset)
    return load_normalized(path, limit, seed, subset, Path(corpus) if corpus else None)
