r"""The hop-reading benchmark: is a hop's own answer right, given the right earlier answers?

    python -m resin.evals.hop_reading [--data-dir ../shared/data] [--limit 100] [--seed 0]
        [--runs evals/runs/hop_reading] [--out evals/results/hop_reading.md] [--k 5]

The planner is taken out of the measure: every gold hop is read as the agent reads a hop of its
plan, with the gold answers of the hops before it in place of the agent's own, so a wrong answer
is the hop reader's (its retrieval or its reading), never an earlier hop's. On all three sets,
always together (a change that helps one set and hurts another shows here):

- MuSiQue: every step of `chain.decomposition`, `#k` standing for step k's gold answer;
- 2WikiMultihopQA: every evidence triple as a hop (subject, relation → object), a later hop's
  subject being an earlier one's gold object; both as `resin.evals.gold_plans.gold_steps` builds
  them (the hops of `agent_gold_plan`);
- HotpotQA: only the final answer is gold, so only questions Break decomposed (the ones its file
  marks `in_hotpotqa_dev_300`) count. Where the only earlier Break step is a plain `select`
  bridged by a `project`, its answer is the one supporting paragraph's title the question does not
  write, and the final step is scored given that title ("final step"; a lone `select` is scored
  as it is); otherwise the Break chain runs end to end, each step
  given the agent's own earlier answers and a combining last step computed as the parsed plan
  computes it (`gold_plans.break_plan`): "chain", or "not executable" when the agent's executor
  cannot run it (then it has no answer).

Questions: a seeded sample per set, the one `resin eval --subset --limit N --seed S` draws;
HotpotQA's sample holds few Break questions, so its corpus is built for the sample plus every
Break-decomposed question. Corpus and index are the runner's (`--subset`, `--extract nlp`:
the questions' gold paragraphs plus as many distractors), under RUNS/<set>/index (reruns build
nothing new).

Reading is `resin.agent.reading.typed_hop.resolve_typed`, the call `resolve_hop` makes for a
hop of a parsed or model plan (retrieval, the hop reader, its threshold, the year rule), with
the earlier hops' results as the graph would hold them; a computed step is
`resin.agent.answering.hop_compute.compute`, as `resolve_hop` computes one. The model fallback
of a model plan's unanswered hop (`bridge_value`) is not the reader and is not run, nor is any
model: the benchmark calls no chat model. Per hop: its answer, its route (`unit`, `sentence`,
`polarity`, `computed`, `none`), whether it read its gold paragraph and the gold answer's words,
and where the gold answer ranked among its candidates.

Weights: the shipped ranking (`agent/reading/hop_ranking.json`) was fit on these three files,
so its scores are in-sample. Each set is read again with weights refit by
`resin.evals.fit_ranking` on the other two files only (leave one dataset out, "LODO"): the
honest figures. The refits are cached in RUNS/lodo/ while the reader's code and data are
unchanged (a refit reads every gold hop of the three files: minutes).

Writes OUT (markdown) and OUT.json: the header of `resin.evals.provenance`, the run time, and
EM/F1 per set, hop position (1, 2, 3+ by dependency depth), expected answer type and route,
each under both weights; every hop's row (they quote the data) goes to RUNS/hops.jsonl, which
is git-ignored.

Modules: `scoring` (cases, rows, failure causes, the tables' figures), `cases` (the gold hops and
Break chains), `reading` (reading under the shipped or LODO weights), `report`, `run` (the
command line, `python -m resin.evals.hop_reading`).
"""

from resin.evals.hop_reading.cases import break_cases, gold_cases, paragraph_doc
from resin.evals.hop_reading.reading import fit_fingerprint, lodo_weights, ranking_from, read_case
from resin.evals.hop_reading.report import report_markdown
from resin.evals.hop_reading.run import main, run
from resin.evals.hop_reading.scoring import (
    Case,
    Row,
    depths,
    failure,
    position_label,
    summarize,
    written,
    wrong_patterns,
)

__all__ = [
    "Case",
    "Row",
    "break_cases",
    "depths",
    "failure",
    "fit_fingerprint",
    "gold_cases",
    "lodo_weights",
    "main",
    "paragraph_doc",
    "position_label",
    "ranking_from",
    "read_case",
    "report_markdown",
    "run",
    "summarize",
    "written",
    "wrong_patterns",
]
