"""The browser check's own logic (resin.evals.ui_check, ui_browser), without a browser or server."""

import importlib.util
from pathlib import Path

import pytest

from resin.evals import ui_browser, ui_check
from resin.evals.ui_browser import BrowserRun, Check, Expected, write_report

SERVER = "http://127.0.0.1:2024"
BRIEF = {
    "question": "In which port was the designer of the Orrin Dam born?",
    "answer": "Caldmere",
    "sources": [
        {"label": 1, "title": "Orrin Dam", "sentence": "The Orrin Dam was designed by Hessa Varn."},
        {"label": 2, "title": "Hessa Varn", "sentence": "Hessa Varn was born in Caldmere."},
    ],
    "hops": [
        {
            "id": 1,
            "question": "Who designed the Orrin Dam?",
            "answer": "Hessa Varn",
            "status": "resolved",
        },
        {
            "id": 2,
            "question": "Where was Hessa Varn born?",
            "answer": "Caldmere",
            "status": "resolved",
        },
    ],
    "notes": ["answered hop by hop: 2 hops"],
}


CUSTOM = {"resin": 5, "other": 6}


def expected(chains=1):
    return Expected(BRIEF["question"], BRIEF, chains, ["Caldmere"], SERVER)


def snapshot(**changes):
    """The page as the contract wants it for BRIEF."""
    page = {
        "text": "Caldmere - The Orrin Dam was designed by Hessa Varn. [1]",
        "citations": [
            {"text": f"[{s['label']}]", "href": f"{SERVER}/sources/p{s['label']}?sentence=0"}
            for s in BRIEF["sources"] * 2
        ],
        "loading": False,
        "traces": 1,
        "hops": [
            {"status": h["status"], "text": f"{h['question']} → {h['answer']}"}
            for h in BRIEF["hops"]
        ],
        "chains": 1,
        "notes": list(BRIEF["notes"]),
        "sources": [
            {"text": s["sentence"], "href": f"{SERVER}/passages/p{s['label']}?s=1"}
            for s in BRIEF["sources"]
        ],
    }
    return {**page, **changes}


def failed(checks):
    return {c.name for c in checks if not c.ok}


def test_a_page_that_keeps_the_contract_passes_every_check():
    assert failed(ui_browser._trace_checks(snapshot(), expected())) == set()


def test_no_trace_is_one_failure_naming_it():
    checks = ui_browser._trace_checks(snapshot(traces=0, hops=[], sources=[]), expected())
    assert [(c.name, c.ok) for c in checks] == [("trace shown", False)]
    assert "no resin-trace" in checks[0].detail


def test_each_broken_part_of_the_contract_fails_its_own_check():
    hops = [dict(h) for h in snapshot()["hops"]]
    hops[0]["status"] = "reading"
    hops[1]["text"] = "Where was Hessa Varn born?"
    sources = [
        {"text": "x", "href": "http://127.0.0.1:3000/passages/p1"},
        {"text": "y", "href": None},
    ]
    page = snapshot(hops=hops, chains=0, notes=[], sources=sources)
    checks = {c.name: c for c in ui_browser._trace_checks(page, expected())}
    assert failed(checks.values()) == {
        "hop data-status",
        "hop question and answer",
        "resin-chain when there is a chain",
        "resin-note per note",
        "resin-source per source, linking to the server",
    }
    assert "hop 1: 'reading' after the run" in checks["hop data-status"].detail
    assert "not shown: 'answered hop by hop: 2 hops'" in checks["resin-note per note"].detail
    assert "hop 2 lacks 'Caldmere'" in checks["hop question and answer"].detail
    assert "no <a href>" in checks["resin-source per source, linking to the server"].detail


def test_statuses_and_extra_notes_are_the_component_s_own_words():
    hops = [{**h, "status": "answered"} for h in snapshot()["hops"]]
    page = snapshot(hops=hops, notes=[*BRIEF["notes"], "hop 2 found no answer"])
    assert failed(ui_browser._trace_checks(page, expected())) == set()


def test_a_loopback_link_by_another_name_is_the_server_s():
    sources = [
        {"text": "x", "href": "http://localhost:2024/sources/p1?sentence=2"},
        {"text": "y", "href": "http://[::1]:2024/sources/p2"},
    ]
    assert failed(ui_browser._trace_checks(snapshot(sources=sources), expected())) == set()
    other_port = [{**s, "href": "http://localhost:3000/sources/p1"} for s in sources]
    assert failed(ui_browser._trace_checks(snapshot(sources=other_port), expected())) == {
        "resin-source per source, linking to the server"
    }


def test_a_chain_shown_where_the_run_has_none_fails():
    assert failed(ui_browser._trace_checks(snapshot(chains=2), expected(chains=0))) == {
        "resin-chain when there is a chain"
    }


def test_a_missing_hop_fails_the_count():
    page = snapshot(hops=snapshot()["hops"][:1])
    assert "one resin-hop per hop" in failed(ui_browser._trace_checks(page, expected()))


def test_a_page_without_a_trace_is_judged_without_opening_a_link(tmp_path):
    seen = BrowserRun(timings={"run finished": 2.0}, snapshot=snapshot(traces=0, hops=[]))
    checks = ui_browser.judge(None, seen, expected(), tmp_path, "q1")
    assert [c.name for c in checks if not c.ok] == ["trace shown"]
    assert "run finished in the page" in [c.name for c in checks]


def test_the_answer_checks_read_the_chat_text():
    timings = {"run finished": 3.0}
    assert failed(ui_browser._answer_checks(snapshot(), timings, expected())) == set()
    wrong = ui_browser._answer_checks(snapshot(text="Lindmoor"), {"run finished": None}, expected())
    assert failed(wrong) == {
        "run finished in the page",
        "answer shown in the chat",
        "answer is a sample answer",
    }


def test_the_answer_s_citations_must_each_link_to_a_passage_of_the_server():
    timings = {"run finished": 3.0}
    name = "answer's citations link to their passages"
    links = snapshot()["citations"]
    elsewhere = [{**links[0], "href": "http://example.org:80/sources/p1"}, *links[1:]]
    for citations in ([], links[:2], elsewhere, [{**links[0], "text": "[9]"}, *links[1:]]):
        checks = ui_browser._answer_checks(snapshot(citations=citations), timings, expected())
        assert failed(checks) == {name}, citations


def test_a_plain_client_needs_the_answer_streamed_and_in_the_last_message():
    state = {"answer": "Caldmere", "messages": [{"type": "ai", "content": "Caldmere\n\n- …"}]}
    assert (
        failed(ui_check.plain_checks(state, {"chunks": ["Cald", "mere\n\n- …"], "custom": CUSTOM}))
        == set()
    )
    blocks = {
        "answer": "Caldmere",
        "messages": [{"content": [{"type": "text", "text": "Caldmere"}]}],
    }
    assert (
        failed(ui_check.plain_checks(blocks, {"chunks": ["Caldmere"], "custom": CUSTOM})) == set()
    )
    silent = {"answer": "Caldmere", "messages": [{"type": "ai", "content": ""}]}
    assert failed(ui_check.plain_checks(silent, {"chunks": [], "custom": CUSTOM})) == {
        "plain client: answer streamed as message chunks",
        "plain client: last message holds the answer",
    }


def test_missing_tools_are_named_one_line_each_and_exit_2(tmp_path, monkeypatch, capsys):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name: None if name == "playwright" else real(name)
    )
    monkeypatch.setattr(ui_check.shutil, "which", lambda name: None)
    argv = ["--chat-ui", str(tmp_path), "--out", str(tmp_path / "report.md")]
    assert ui_check.main(argv) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 3
    assert "playwright is not importable" in lines[0]
    assert "no chromium on PATH" in lines[1]
    assert f"--chat-ui {tmp_path}: not built" in lines[2]
    assert not (tmp_path / "report.md").exists()


def test_a_chat_ui_is_required_unless_its_url_is_given(tmp_path):
    args = ui_check.parse_args(["--server-url", SERVER])
    assert any("pass --chat-ui DIR" in p for p in ui_check.missing(args))
    args = ui_check.parse_args(["--server-url", SERVER, "--chat-ui", str(tmp_path / "none")])
    assert any(p.endswith("none: no such folder") for p in ui_check.missing(args))
    args = ui_check.parse_args(["--server-url", SERVER, "--chat-ui-url", "http://127.0.0.1:3000"])
    assert not any("chat-ui" in p for p in ui_check.missing(args))


def test_an_unknown_sample_id_is_refused():
    with pytest.raises(SystemExit, match="no sample question q99"):
        ui_check.samples("q1,q99")
    assert [row["id"] for row in ui_check.samples("q1,q6")] == ["q1", "q6"]


def test_the_report_has_the_header_timings_and_every_check(tmp_path):
    browser = BrowserRun(
        timings={"first hop shown": 2.5, "first answer text": 4.0, "run finished": 4.1},
        progress=["2.50s: hop 1 resolved"],
        screenshots=[Path("/tmp/q1-answer.png")],
    )
    run = {
        "id": "q1",
        "question": BRIEF["question"],
        "answer": "Caldmere",
        "sdk": {"first chunk": 1.0, "finished": 1.2},
        "browser": browser,
        "checks": [Check("trace shown", True, "1"), Check("hop data-status", False, "a | b")],
    }
    head = {
        "date": "2026-12-07",
        "commit": "abc1234",
        "machine": "m",
        "command": "c",
        "browser": "x",
    }
    path = tmp_path / "ui_check.md"
    assert write_report(path, head, [run]) is False
    text = path.read_text()
    assert "- commit: abc1234" in text and "- browser: x" in text
    assert "| q1 | 1.00 | 1.20 | 2.50 | 4.00 | 4.10 |" in text
    assert "| q1 | hop data-status | FAIL | a \\| b |" in text
    assert text.rstrip().endswith("Result: FAILED.")
    run["checks"] = run["checks"][:1]
    assert write_report(path, head, [run]) is True


def test_the_browser_waits_for_this_run_s_ui_bundle_only(tmp_path):
    assert ui_check._ui_bundle(tmp_path, {}, 0.0, 1.0) == "langgraph.json declares no ui"
    schemas = tmp_path / ".langgraph_api" / "ui" / "schemas.json"
    schemas.parent.mkdir(parents=True)
    schemas.write_text("{}")
    written = schemas.stat().st_mtime
    with pytest.raises(TimeoutError, match="wrote no .*schemas.json"):  # an earlier run's bundle
        ui_check._ui_bundle(tmp_path, {"resin": "./ui/trace.tsx"}, written + 1, 0.6)
    assert "resin bundled" in ui_check._ui_bundle(tmp_path, {"resin": "x"}, written - 1, 5.0)


def test_only_ai_messages_and_chunks_count_as_answer_text():
    assert ui_check.ai_text({"type": "AIMessageChunk", "content": "Cald"}) == "Cald"
    assert ui_check.ai_text({"type": "ai", "content": [{"type": "text", "text": "mere"}]}) == "mere"
    assert ui_check.ai_text({"type": "human", "content": "In which port…"}) == ""
