"""HolisQA: `qa.jsonl` with `sentences.jsonl` (and optionally `articles.jsonl`) in one folder.

One document per article, its text the article's sentences; a question's gold passage key is the
article of each of its `context_sentence_ids`, which are also its gold sentences.
"""

from __future__ import annotations

from pathlib import Path

from resin.evals.data.corpus import choose_from_pool, clean, read_jsonl, sentence_document
from resin.evals.data.dataset import DataError, Dataset, Question
from resin.evals.data.records import answers_of
from resin.indexes.documents import DEFAULT_PASSAGE_CHARS


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
    for rec in read_jsonl(sent_path):
        aid, sid = str(rec["article_id"]), str(rec["sentence_id"])
        by_article.setdefault(aid, []).append((int(rec.get("sent_idx", 0)), sid, str(rec["text"])))
        article_of[sid] = aid
    titles: dict[str, str] = {}
    if (folder / "articles.jsonl").exists():
        for rec in read_jsonl(folder / "articles.jsonl"):
            titles[str(rec["article_id"])] = clean(rec.get("title") or "")
    questions = []
    for rec in read_jsonl(qa_path):
        sids = [str(s) for s in rec.get("context_sentence_ids") or []]
        gold = list(dict.fromkeys(article_of[s] for s in sids if s in article_of))
        questions.append(
            Question(
                id=str(rec.get("qa_id") or rec.get("id")),
                question=clean(rec["question"]),
                answers=answers_of(rec),
                gold_keys=gold,
                gold_sentence_ids=sids,
                type=str(rec.get("category") or ""),
                own_keys=gold,
            )
        )
    if not questions:
        raise DataError(f"{qa_path}: no questions")
    whole = f"all {len(by_article)} articles of {sent_path.parent.name}"
    names = ("articles", "other articles", whole)
    chosen, keep, notes = choose_from_pool(questions, limit, seed, subset, list(by_article), names)
    docs, sentences = [], {}
    for aid, rows in by_article.items():
        if aid not in keep:
            continue
        rows.sort()
        doc, ids = sentence_document(
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
