"""`GET /ready`'s verdict: None when the index and its servers answer, else one masked line.

Through a real server, against a real PostgreSQL and Chroma: tests/integration/test_postgres_failures.py.
"""

from __future__ import annotations

from starlette.testclient import TestClient

from resin.agent.context import Context
from resin.agent.readiness import unready_reason
from resin.agent.server import app
from resin.indexes.index_config import missing_index_message
from resin.testing.processes import free_port


def test_a_local_index_is_ready_when_its_manifest_is_there(tmp_path):
    assert unready_reason(Context(index_path=str(tmp_path))) == missing_index_message(tmp_path)
    (tmp_path / "manifest.json").write_text("{}", encoding="utf-8")
    assert unready_reason(Context(index_path=str(tmp_path))) is None


def test_a_database_or_chroma_that_does_not_answer_is_named_with_the_password_masked(tmp_path):
    (tmp_path / "manifest.json").write_text("{}", encoding="utf-8")
    port = free_port()
    reason = unready_reason(
        Context(index_path=str(tmp_path), chroma_host="127.0.0.1", chroma_port=port)
    )
    assert reason is not None and reason.startswith(f"Chroma server 127.0.0.1:{port}: ")
    refused = f"postgresql://resin:s3cret@127.0.0.1:{free_port()}/resin"
    reason = unready_reason(Context(database=refused, chroma_host="127.0.0.1"))
    assert reason is not None and "s3cret" not in reason and "\n" not in reason
    assert reason.startswith(f"database {refused.replace('s3cret', '***')}: connection failed")
    reason = unready_reason(Context(database="mysql://u:s3cret@db/x"))
    assert reason is not None and "is no PostgreSQL URL" in reason and "s3cret" not in reason


def test_the_route_answers_503_with_the_reason_then_200(tmp_path, monkeypatch):
    monkeypatch.setenv("RESIN_INDEX", str(tmp_path))
    for name in ("RESIN_DATABASE_URL", "RESIN_CHROMA_HOST"):
        monkeypatch.delenv(name, raising=False)
    client = TestClient(app)
    response = client.get("/ready")
    assert response.status_code == 503
    assert response.json() == {"status": "unavailable", "reason": missing_index_message(tmp_path)}
    (tmp_path / "manifest.json").write_text("{}", encoding="utf-8")
    response = client.get("/ready")
    assert (response.status_code, response.json()) == (
        200,
        {"status": "ready", "index": str(tmp_path)},
    )


def test_every_route_the_server_mounts_gives_openapi_a_parsable_docstring():
    from starlette.routing import Route
    from starlette.schemas import SchemaGenerator

    from resin.agent.server import app

    routes = [r for r in app.routes if isinstance(r, Route)]
    assert {"/ready", "/sources/{passage_id}", "/mcp"} <= {r.path for r in routes}
    for route in routes:  # the server reads the part after '---' as YAML, or the whole text
        parsed = SchemaGenerator({}).parse_docstring(route.endpoint)
        assert isinstance(parsed, dict), (route.path, parsed)
