from pathlib import Path

from resin.agent.context import Context
from resin.indexes.index_config import resolve_index_path


def test_fields_not_given_come_from_the_environment_and_a_given_field_wins(monkeypatch):
    for step in ("", "PLAN_", "HOP_", "COMPOSE_"):
        monkeypatch.delenv(f"RESIN_{step}MODEL", raising=False)
    for name in ("RESIN_INDEX", "RESIN_EMBEDDER", "RESIN_CHROMA_HOST", "RESIN_CHROMA_PORT"):
        monkeypatch.delenv(name, raising=False)
    assert Context().plan_model == "auto" and Context().compose_model == "embedded"
    assert Context().index_path == ".resin"
    monkeypatch.setenv("RESIN_INDEX", "/srv/resin/index")
    monkeypatch.setenv("RESIN_MODEL", "openai:m@http://gpu:8000/v1")
    monkeypatch.setenv("RESIN_PLAN_MODEL", "fake")
    monkeypatch.setenv("RESIN_EMBEDDER", "/models/e5")
    monkeypatch.setenv("RESIN_CHROMA_HOST", "chroma.internal")
    monkeypatch.setenv("RESIN_CHROMA_PORT", "8123")
    ctx = Context()
    assert ctx.index_path == "/srv/resin/index"
    assert (ctx.plan_model, ctx.hop_model, ctx.compose_model) == (
        "fake",
        "openai:m@http://gpu:8000/v1",
        "openai:m@http://gpu:8000/v1",
    )
    assert (ctx.embedder, ctx.chroma_host, ctx.chroma_port) == (
        "/models/e5",
        "chroma.internal",
        8123,
    )
    given = Context(index_path="/other", compose_model="embedded")
    assert given.index_path == "/other" and given.compose_model == "embedded"
    assert given.hop_model == "openai:m@http://gpu:8000/v1"


def test_a_relative_index_is_taken_from_the_working_directory_of_the_process_opening_it(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    assert resolve_index_path("idx") == tmp_path.resolve() / "idx"
    assert resolve_index_path(Context(index_path="/abs/idx").index_path) == Path("/abs/idx")
