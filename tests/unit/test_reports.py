"""Report headers (resin.evals.provenance) and the multi-hop suite's report (resin.evals.multihop)."""

import json
import re
from pathlib import Path

from resin.evals import multihop, provenance


def test_the_header_holds_date_commit_machine_and_command():
    lines = provenance.header_lines("python -m resin.evals.bench_nlp --out x.md")
    assert [line.split(":")[0] for line in lines] == [
        "- date",
        "- commit",
        "- machine",
        "- command",
    ]
    assert re.fullmatch(r"- date: \d{4}-\d{2}-\d{2} \(UTC\)", lines[0])
    assert re.fullmatch(r"- commit: ([0-9a-f]{4,}( \+ uncommitted changes)?|unknown)", lines[1])
    assert "cores" in lines[2] and "GiB RAM" in lines[2] and "Python 3." in lines[2]
    assert lines[3] == "- command: `python -m resin.evals.bench_nlp --out x.md`"


def test_the_commit_is_unknown_outside_a_checkout(tmp_path, monkeypatch):
    monkeypatch.setattr(provenance, "REPO", tmp_path)  # no .git here or above (tmp)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    assert provenance.commit() == "unknown"


def test_command_of_quotes_the_arguments_as_given():
    assert provenance.command_of("resin.evals.multihop", []) == "python -m resin.evals.multihop"
    assert (
        provenance.command_of("resin.evals.multihop", ["--runs", "a b"])
        == "python -m resin.evals.multihop --runs 'a b'"
    )


def _runner_report(name: str, em: dict[str, float], questions: int = 100) -> dict:
    """A results.json as `resin.evals.runner.run_eval` writes it (only the fields read here)."""
    return {
        "run": {"command": f"resin eval --data {name}.jsonl", "extract": "nlp", "k": 5},
        "dataset": {
            "path": f"../shared/data/{name}.jsonl",
            "questions": questions,
            "documents": 400,
        },
        "build": {"corpus_passages": 400},
        "systems": {
            system: {
                "questions": questions,
                "errors": 1 if system == "bm25" else 0,
                "em": value,
                "f1": value + 5,
                "recall@5": 80.0,
                "latency_p50": 0.1,
            }
            for system, value in em.items()
        },
    }


def test_the_multihop_report_is_one_table_of_set_by_system(tmp_path):
    reports = {
        "HotpotQA": _runner_report("hotpot", {"bm25": 20.0, "dense": 21.0, "agent": 24.0}),
        "2WikiMultihopQA": _runner_report("2wiki", {"bm25": 30.0, "dense": 32.0, "agent": 31.5}),
        "MuSiQue": _runner_report("musique", {"bm25": 5.0, "dense": 6.0, "agent": 9.0}),
    }
    settings = {"limit": 100, "seed": 0, "model": "embedded", "runs": "r", "extract": "nlp", "k": 5}
    out = tmp_path / "results" / "multihop.md"
    figures = multihop.write_report(reports, settings, out, "python -m resin.evals.multihop")

    text = out.read_text(encoding="utf-8")
    assert text.splitlines()[2].startswith("- date: ")
    assert "- command: `python -m resin.evals.multihop`" in text
    for name in ("hotpot", "2wiki", "musique"):
        assert f"`../shared/data/{name}.jsonl`, 100 questions" in text
    table = [line for line in text.splitlines() if line.startswith("| ")]
    assert table[0] == "| set | system | n | EM | F1 | R@5 | agent − dense EM |"
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in table[1:]]
    assert [(r[0], r[1]) for r in rows] == [
        (s, system)
        for s in ("HotpotQA", "2WikiMultihopQA", "MuSiQue")
        for system in ("agent", "dense", "bm25")
    ]
    assert rows[0] == ["HotpotQA", "agent", "100", "24.0", "29.0", "80.0", "+3.0"]
    assert rows[2] == ["HotpotQA", "bm25", "100 (1 err)", "20.0", "25.0", "80.0", ""]
    assert rows[3][-1] == "-0.5" and rows[6][-1] == "+3.0"

    saved = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert saved == json.loads(json.dumps(figures))
    assert saved["header"]["command"] == "python -m resin.evals.multihop"
    hotpot = saved["sets"]["HotpotQA"]
    assert hotpot["agent_minus_dense_em"] == 3.0
    assert hotpot["systems"]["dense"] == {
        "questions": 100,
        "errors": 0,
        "em": 21.0,
        "f1": 26.0,
        "recall@5": 80.0,
    }


def test_the_suite_runs_every_set_with_the_same_eval_flags():
    argv = multihop.eval_argv(multihop.Path("d/musique.jsonl"), multihop.Path("r/m"), 100, 3, False)
    assert argv == [
        "eval",
        "--data",
        "d/musique.jsonl",
        "--subset",
        "--limit",
        "100",
        "--seed",
        "3",
        "--model",
        "embedded",
        "--systems",
        "agent,dense,bm25",
        "--out",
        "r/m",
    ]
    assert list(multihop.SETS) == ["HotpotQA", "2WikiMultihopQA", "MuSiQue"]


def test_the_report_says_when_the_agent_was_fit_on_the_sets():
    notes = multihop.fitted_on(["../shared/data/musique/musique_dev_140.jsonl"])
    assert [note.split(":")[0] for note in notes] == [
        "agent/reading/hop_ranking.json",
        "tools/pair_weights.json",
    ]
    assert multihop.fitted_on(["elsewhere/other_dev.jsonl"]) == []


def test_multihop_serves_a_set_from_postgresql_with_its_database_flags(tmp_path):
    serve = ["--database", "postgresql://u@h/hotpotqa", "--chroma-host", "h", "--chroma-port", "1"]
    argv = multihop.eval_argv(Path("d.jsonl"), tmp_path, 10, 0, True, serve)
    assert argv[argv.index("--database") : argv.index("--database") + 6] == serve
    reports = {
        name: _runner_report(name, {"bm25": 1.0, "dense": 2.0, "agent": 3.0})
        for name in ("HotpotQA", "2WikiMultihopQA", "MuSiQue")
    }
    settings = {"limit": 10, "seed": 0, "model": "embedded", "runs": "r", "extract": "nlp", "k": 5}
    out = tmp_path / "multihop.md"
    multihop.write_report(reports, {**settings, "postgres": True}, out, "python -m x")
    assert "- served from PostgreSQL:" in out.read_text(encoding="utf-8")
    multihop.write_report(reports, settings, out, "python -m x")
    assert "served from PostgreSQL" not in out.read_text(encoding="utf-8")


def test_a_report_written_as_it_goes_is_no_uncommitted_change(monkeypatch):
    asked = []

    def git(*args):
        asked.append(args)
        return "abc1234\n" if args[0] == "rev-parse" else ""

    monkeypatch.setattr(provenance, "_git", git)
    assert provenance.commit() == "abc1234"
    assert ":(exclude)evals/results" in asked[-1]
