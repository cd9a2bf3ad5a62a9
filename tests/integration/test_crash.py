"""kill -9 during `resin index`, then rerun: nothing lost, nothing duplicated."""

import pytest

from evals.crash import run_trials

pytestmark = pytest.mark.slow


def test_sigkilled_builds_resume_to_the_uninterrupted_result(embedder):
    figures = run_trials(trials=3, documents=150, seed=3, embedder=embedder)
    assert figures["trials"] == 3 and figures["killed_mid_build"] >= 1
    assert figures["units_per_build"] > 100
    assert figures["lost"] == figures["duplicated"] == figures["extra"] == 0
    assert figures["mismatched_stores"] == 0
