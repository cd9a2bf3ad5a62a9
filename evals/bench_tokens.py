"""Extraction cost: model tokens per 1K corpus tokens on the sample corpus, and wall time.

    python -m resin.evals.bench_tokens [--model embedded]

Corpus tokens are counted with the extraction model's own tokenizer (SmolLM2's for the embedded
model); model tokens are the prompt + completion tokens the backend reports for every call made.
Target: ≤ 2,000 (GraphRAG spends 20,241 per 1K corpus tokens).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from resin.agent import SAMPLE_DIR
from resin.agent.llm import DEFAULT_CHAT_SPEC, make_chat_model
from resin.agent.llm.llama_cpp import ChatLlamaCpp
from resin.indexes.build import Builder
from resin.indexes.documents import DEFAULT_PASSAGE_CHARS, make_passages
from resin.indexes.opening import open_index
from resin.indexes.reading import load_documents


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default=DEFAULT_CHAT_SPEC)
    parser.add_argument("--passage-chars", type=int, default=DEFAULT_PASSAGE_CHARS)
    args = parser.parse_args()
    model = make_chat_model(args.model)
    docs, _ = load_documents([SAMPLE_DIR / "docs"])
    passages = [p for d in docs for p in make_passages(d, args.passage_chars)]
    if isinstance(model, ChatLlamaCpp):
        corpus_tokens = sum(model.count_tokens(p.text) for p in passages)
        tokenizer = "the model's own"
    else:
        corpus_tokens = round(sum(len(p.text) for p in passages) / 4)
        tokenizer = "estimated at 4 characters per token"
    with tempfile.TemporaryDirectory() as tmp:
        index = open_index(Path(tmp), create=True, passage_chars=args.passage_chars)
        start = time.perf_counter()
        report = Builder(index, model).run(docs)
        wall = time.perf_counter() - start
        index.close()
    spent = report.prompt_tokens + report.completion_tokens
    print(
        json.dumps(
            {
                "model": args.model,
                "documents": len(docs),
                "passages": report.passages,
                "corpus_tokens": corpus_tokens,
                "corpus_tokenizer": tokenizer,
                "model_calls": report.model_calls,
                "failed_passages": len(report.failed_passages),
                "prompt_tokens": report.prompt_tokens,
                "completion_tokens": report.completion_tokens,
                "model_tokens_per_1k_corpus_tokens": round(1000 * spent / corpus_tokens),
                "units_kept": report.units,
                "units_proposed": report.proposed,
                "grounded_share": report.grounded_share,
                "wall_seconds": round(wall, 1),
                "seconds_per_passage": round(wall / max(1, report.passages), 2),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
