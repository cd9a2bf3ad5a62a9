"""The small public seams issue 17 added: the model registry, the index factory, name scanning."""

import pytest

from resin.agent.llm import (
    ModelSpecError,
    make_chat_model,
    register_chat_model,
    registered_chat_model,
    unregister_chat_model,
)
from resin.indexes.index_config import IndexNotFoundError
from resin.indexes.lexical import word_runs
from resin.indexes.opening import open_index
from resin.testing.chat import ScriptedChatModel, heuristic_reply


def test_a_registered_model_is_served_by_name_until_it_is_unregistered():
    model = ScriptedChatModel(responses=["x"])
    register_chat_model("registry-test", model)
    assert make_chat_model("registry-test") is model
    unregister_chat_model("registry-test")
    unregister_chat_model("registry-test")  # forgetting twice is no error
    with pytest.raises(ModelSpecError, match="unknown model spec"):
        make_chat_model("registry-test")


def test_registered_chat_model_forgets_the_model_after_the_block():
    with registered_chat_model("registry-block", ScriptedChatModel(responses=["x"])) as model:
        assert make_chat_model("registry-block") is model
    with pytest.raises(ModelSpecError):
        make_chat_model("registry-block")


def test_a_registered_builder_makes_a_model_per_use():
    register_chat_model("registry-builder", lambda: ScriptedChatModel(responses=["x"]))
    try:
        assert make_chat_model("registry-builder") is not make_chat_model("registry-builder")
    finally:
        unregister_chat_model("registry-builder")


def test_the_fake_spec_the_tests_register_is_the_rule_based_model():
    model = make_chat_model("fake")
    assert isinstance(model, ScriptedChatModel) and model.responder is heuristic_reply


def test_open_index_refuses_a_folder_with_no_index_unless_it_creates_one(tmp_path, embedder):
    with pytest.raises(IndexNotFoundError, match="no resin index"):
        open_index(tmp_path / "none", embedder)
    index = open_index(tmp_path / "new", embedder, create=True)
    try:
        assert index.catalog.is_empty() and index.graph.edge_count() == 0
        assert list(index.graph.edges()) == [] and index.catalog.unit_rows() == []
    finally:
        index.close()


def test_word_runs_reads_longest_runs_first_left_to_right():
    assert list(word_runs("a b c".split(), 2)) == ["a b", "b c", "a", "b", "c"]
    assert list(word_runs(["a"], 4)) == ["a"]
    assert list(word_runs([], 3)) == []
