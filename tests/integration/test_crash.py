"""kill -9 during `resin index`, then rerun: nothing lost, nothing duplicated."""

import pytest

from resin.evals.crash import run_trials

pytestmark = pytest.mark.slow


def test_sigkilled_builds_resume_to_the_uninterrupted_result(embedder):
    # two batches of passages: one kill in each half of the build, timed from its progress
    figures = run_trials(trials=2, documents=80, seed=3, embedder=embedder)
    assert figures["trials"] == figures["killed_mid_build"] == 2
    assert figures["units_per_build"] > 80
    assert figures["lost"] == figures["duplicated"] == figures["extra"] == 0
    assert figures["mismatched_stores"] == 0
