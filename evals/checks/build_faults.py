"""Faults during a build: each mode of the faulty model server, then recovery on the next run.

A fault must give a clear error naming the server, leave the index intact, and lose nothing once
the server is back (the comparison is with a reference build that saw no faults).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from resin.testing.faults import FAULT_MODES, FaultyServer, fault_documents


def check_faults(work: Path, embedder: Any, figures: dict[str, Any]) -> None:
    """Each fault mode during a build: clear errors, index intact, nothing lost after recovery."""
    from resin.agent.llm import ModelBackendError, make_chat_model
    from resin.evals.crash import compare, snapshot
    from resin.indexes.build import Builder
    from resin.indexes.opening import open_index

    docs = fault_documents()
    with FaultyServer(delay=1.5) as server:
        reference = open_index(work / "fault-reference", embedder, create=True)
        model = make_chat_model(server.spec(), timeout=0.5, max_retries=1)
        Builder(reference, model).run(docs)
        expected = snapshot(reference)
        reference.close()
        for mode in (*FAULT_MODES, "flaky"):
            figures["trials_run"] += 1
            index = open_index(work / f"fault-{mode}", embedder, create=True)
            server.mode = "ok"
            Builder(index, model).run(docs[:1])  # one document indexed cleanly first
            before = snapshot(index)
            # then the server fails (flaky: once, which the client's retry absorbs)
            server.faults = 0
            server.mode, server.queue = ("ok", ["500"]) if mode == "flaky" else (mode, [])
            try:
                report = Builder(index, model).run(docs)
            except Exception as exc:  # noqa: BLE001 - a fault must never escape the build
                figures["problems"].append(f"fault {mode}: the build raised {exc!r}"[:300])
                report = None
            figures["faults_injected"] += server.faults
            survived = report is not None
            if report is not None:
                kept = set(before["units"]) <= set(snapshot(index)["units"])
                if mode == "flaky":
                    survived = kept and not report.failed_passages
                else:  # the server named (or, for a non-JSON reply, the output called unusable)
                    names = "unparseable model output" if mode == "nonsense" else server.url
                    clear = bool(report.errors) and all(names in e for e in report.errors)
                    survived = kept and clear and bool(report.failed_passages)
                if not survived:
                    figures["problems"].append(f"fault {mode}: {report.errors[:2]}"[:300])
            server.mode, server.queue = "ok", []
            Builder(index, model).run(docs)  # the next run retries the failed passages
            diff = compare(expected, snapshot(index))
            index.close()
            figures["units_lost"] += diff["lost"]
            figures["units_duplicated"] += diff["duplicated"] + diff["extra"]
            if diff["mismatched_stores"]:
                figures["problems"].append(f"fault {mode}: stores differ from the reference")
            if survived and not any(diff.values()):
                figures["faults_survived"] += server.faults
        # a model call from the graph's compose step: a clear ModelBackendError, bounded in time
        figures["trials_run"] += 1
        server.mode, server.faults = "500", 0
        started = time.monotonic()
        try:
            make_chat_model(server.spec(), timeout=0.5, max_retries=1).invoke("hello")
            figures["problems"].append("a 500 answer did not raise")
        except ModelBackendError as exc:
            if server.url in str(exc) and time.monotonic() - started < 10:
                figures["faults_survived"] += server.faults
        figures["faults_injected"] += server.faults
        server.mode = "ok"
