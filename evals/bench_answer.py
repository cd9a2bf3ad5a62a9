"""What a person waits for and reads: time to first answer token and the answers, embedded model.

    python -m resin.evals.bench_answer                      # the sample questions, warm process
    python -m resin.evals.bench_answer --questions 8 --index /tmp/sample-index

Indexes the bundled sample corpus (structural index unless --extract is given; an existing
--index is reused), loads the models once (a warm process, as in a chat server), then streams each
sample question through the graph and records the seconds until the first chunk of the answer
message and until the run ends, the message itself, and whether it holds an expected answer and
repeats no sentence. Target (issue 13): time to first token median ≤ 6 s on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from pathlib import Path
from typing import Any

from resin.agent.context import Context
from resin.agent.graph import graph
from resin.agent.llm import DEFAULT_CHAT_SPEC, make_chat_model
from resin.agent.resources import get_index
from resin.indexes.build import Builder
from resin.indexes.nlp_extraction import load_pipeline
from resin.indexes.opening import open_index
from resin.indexes.reading import load_documents
from resin.indexes.units import normalize

SAMPLE = Path(__file__).resolve().parents[1] / "agent" / "sample"


def repeats(message: str) -> bool:
    """Whether the answer (before its Sources list, which quotes it) says a sentence twice."""
    said = [normalize(s) for s in re.split(r"(?<=[.!?])\s+|\n", message.split("Sources:")[0])]
    said = [s for s in said if len(s.split()) >= 3]
    return len(said) != len(set(said))


def run_question(question: str, ctx: Context) -> dict[str, Any]:
    """Stream one question; seconds to the first answer chunk and to the end, and the message."""
    start = time.perf_counter()
    first = None
    final: dict[str, Any] = {}
    parts: Any = graph.stream(
        {"question": question}, context=ctx, stream_mode=["messages", "values"]
    )
    for mode, payload in parts:
        if mode == "messages":
            chunk, meta = payload
            if first is None and meta.get("langgraph_node") == "compose" and chunk.content:
                first = time.perf_counter() - start
        else:
            final = payload
    messages = final.get("messages") or []
    return {
        "ttft": first,
        "seconds": time.perf_counter() - start,
        "answer": final.get("answer", ""),
        "message": str(messages[-1].content) if messages else "",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, default=Path("/tmp/resin-bench-answer"))
    parser.add_argument("--model", default=DEFAULT_CHAT_SPEC)
    parser.add_argument("--questions", type=int, default=3)
    parser.add_argument("--json", type=Path, help="write the per-question records here")
    args = parser.parse_args()

    ctx = Context(index_path=str(args.index), compose_model=args.model, hop_model=args.model)
    if not (args.index / "manifest.json").exists():  # only a build creates an index
        docs, _ = load_documents([SAMPLE / "docs"])
        Builder(open_index(args.index, create=True), None).run(docs)
    get_index(ctx)
    items = [
        json.loads(line)
        for line in (SAMPLE / "questions.jsonl").read_text().splitlines()
        if line.strip()
    ][: args.questions]
    make_chat_model(args.model).invoke("Hi")  # load the models: the process is warm, as a server's
    load_pipeline()("Warm.")
    records = []
    for item in items:
        record = {"question": item["question"], "expected": item["answers"]}
        record.update(run_question(item["question"], ctx))
        record["correct"] = any(
            normalize(a) in normalize(record["answer"]) for a in item["answers"]
        )
        record["repeats"] = repeats(record["message"])
        records.append(record)
        print(f"\nQ: {item['question']}  (expected: {' / '.join(item['answers'])})")
        print(record["message"])
        print(f"   ttft {record['ttft'] or 0:.2f} s, total {record['seconds']:.2f} s")
    ttft = [r["ttft"] for r in records if r["ttft"] is not None]
    print(
        f"\n{len(records)} questions: ttft median {statistics.median(ttft):.2f} s "
        f"(max {max(ttft):.2f}), total median "
        f"{statistics.median(r['seconds'] for r in records):.2f} s; expected answer in "
        f"{sum(r['correct'] for r in records)}/{len(records)}; "
        f"messages that repeat a sentence: {sum(r['repeats'] for r in records)}"
    )
    if args.json:
        args.json.write_text(json.dumps(records, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
