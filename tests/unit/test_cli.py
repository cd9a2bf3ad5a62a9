"""What the command line shows: document ids, the real hop count, chains drawn once, quiet loads."""

from resin.agent.context import Context
from resin.agent.graph import graph
from resin.agent.trace import mermaid
from resin.tools.retrieval import Chain, ChainLink


def test_stats_lists_the_document_ids_delete_needs(sample_index, capsys):
    from resin.cli import main

    assert main(["stats", "--index", str(sample_index)]) == 0
    out = capsys.readouterr().out
    assert "document ids (for --delete)" in out
    assert "  hessa-varn" in out and "Hessa Varn" in out


def test_the_plan_line_counts_the_hops_that_run(sample_index, capsys):
    from resin.cli.render import stream_answer

    ctx = Context.one_model("fake", plan_model="none", index_path=str(sample_index))
    state = stream_answer(
        graph, {"question": "In which port was the designer of the Orrin Dam born?"}, ctx
    )
    ran = len(state["plan"])
    assert ran > 1  # a structural plan grows by bridge hops
    counts = [line for line in capsys.readouterr().err.splitlines() if "hop(s)" in line]
    assert counts[-1].endswith(f"{ran} in all"), counts


def test_the_chain_drawing_has_each_edge_once():
    shared = ChainLink(
        head="Ysolde Glacier", relation="feeds", tail="Tessel River", unit_ids=["u1"]
    )
    chains = [
        Chain(links=[shared], score=0.9),
        Chain(
            links=[
                shared,
                ChainLink(head="Tessel River", relation="drives", tail="Mill", unit_ids=[]),
            ],
            score=0.8,
        ),
    ]
    lines = mermaid(chains).splitlines()
    assert len(lines) == len(set(lines)) == 1 + 3 + 2  # header, three nodes, two edges


def test_loading_the_embedder_draws_no_progress_bar(capfd):
    from resin.indexes.embeddings import MINILM_NAME, SentenceTransformerEmbeddings, minilm_path

    # a load of its own: `make_embedder` keeps the session's, loaded before output was captured
    SentenceTransformerEmbeddings(str(minilm_path()), name=MINILM_NAME).embed_query("x")
    err = capfd.readouterr().err
    assert "Loading weights" not in err and "it/s" not in err


def test_ask_prints_the_answer_its_sentences_and_sources_and_the_trace_only_when_asked(
    sample_index, capsys, monkeypatch
):
    import json

    from resin.cli import main

    # a server's address in the environment: a terminal still gets plain [n], no markdown links
    monkeypatch.setenv("RESIN_PUBLIC_URL", "http://resin.test:2024")
    question = "In which port was the designer of the Orrin Dam born?"
    argv = ["ask", question, "--index", str(sample_index), "--model", "fake"]
    assert main(argv) == 0
    plain = capsys.readouterr()
    lines = plain.out.strip().splitlines()
    assert lines[0] and "Sources:" in lines and any(line.startswith("- [1] ") for line in lines)
    assert "resin.test" not in plain.out
    assert not any(line.startswith("──") for line in lines) and len(lines) < 15
    assert not any(line.startswith("· ") for line in plain.err.splitlines())
    for flag in ("--trace", "-v"):
        assert main([*argv, flag]) == 0
        traced = capsys.readouterr()
        assert traced.out.startswith(plain.out)  # the same message, then the trace
        trace = traced.out[len(plain.out) :]
        for section in ("── question", "── plan", "── sources", "── time"):
            assert f"\n{section}\n" in trace, section
        assert "(follow-up as typed" not in trace  # a first question is not rewritten
        assert any(line.startswith("· plan, ") for line in traced.err.splitlines())
    assert main([*argv, "--json"]) == 0
    state = json.loads(capsys.readouterr().out)
    assert state["asked"] == question == state["question"]
