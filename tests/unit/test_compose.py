"""deploy/compose.yaml read as Docker Compose would: start order, secrets, bindings, variants.

Docker is not run here: these checks read the file's structure.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


@pytest.fixture(scope="module")
def services() -> dict:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]


def _default(services: dict) -> dict:
    """The services `docker compose up` starts: those in no profile."""
    return {name: s for name, s in services.items() if not s.get("profiles")}


def test_the_builder_waits_for_healthy_servers_and_the_replicas_for_the_builder(services):
    builder = services["builder"]["depends_on"]
    assert builder == {
        "postgres": {"condition": "service_healthy"},
        "chroma": {"condition": "service_healthy"},
    }
    assert services["builder"]["restart"] == "no"
    for name in ("postgres", "chroma", "redis"):
        assert services[name]["healthcheck"]["test"]
    replicas = [n for n in services if n.startswith(("replica-", "server-"))]
    assert len(replicas) == 4
    for name in replicas:
        needs = services[name]["depends_on"]
        assert needs["builder"] == {"condition": "service_completed_successfully"}
        assert needs["postgres"] == {"condition": "service_healthy"}
        # every service a replica waits for is started with it
        profiles = set(services[name].get("profiles", []))
        for other in needs:
            assert set(services[other].get("profiles", [])) <= profiles, (name, other)


def test_no_credential_is_written_in_the_file(services):
    text = (DEPLOY / "compose.yaml").read_text()
    for service in services.values():
        env = service.get("environment", {})
        for key, value in env.items():
            if re.search("PASSWORD|KEY|SECRET|TOKEN", key):
                assert str(value).startswith("${"), (key, value)
    # URLs carry the password only as a variable, which fails loudly when unset
    for url in re.findall(r"postgres(?:ql)?://\S+", text):
        assert re.match(r"postgres(?:ql)?://\$\{POSTGRES_USER[^}]*\}:\$\{POSTGRES_PASSWORD:\?", url)
    example = (DEPLOY / ".env.example").read_text()
    assert re.search(r"^POSTGRES_PASSWORD=", example, re.M)
    ignored = (ROOT / ".gitignore").read_text().split()
    assert ".env" in ignored  # deploy/.env among them


def test_ports_are_published_on_loopback_unless_told(services):
    published = [p for s in services.values() for p in s.get("ports", [])]
    assert published
    for port in published:
        assert port.startswith("${RESIN_BIND:-127.0.0.1}:"), port
    assert not services["postgres"].get("ports") and not services["chroma"].get("ports")


def test_the_default_replicas_are_langgraph_dev_on_shared_threads(services):
    default = _default(services)
    assert {"postgres", "chroma", "builder", "replica-1", "replica-2"} <= set(default)
    assert not {"server-1", "server-2", "redis"} & set(default)
    for name in ("replica-1", "replica-2"):
        command = default[name]["command"]
        assert command[:2] == ["langgraph", "dev"] and "--no-browser" in command
        assert command[command.index("--host") + 1] == "0.0.0.0"
        env = default[name]["environment"]
        # the threads' checkpoints go to this database (resin.agent.threads)
        assert env["RESIN_DATABASE_URL"].startswith("postgresql://")
        assert "LANGGRAPH_CLOUD_LICENSE_KEY" not in env
        assert default[name]["build"]["dockerfile"] == "deploy/Dockerfile"
        # healthy only when the index, its database and Chroma answer (resin.agent.readiness)
        assert "/ready" in " ".join(default[name]["healthcheck"]["test"])
    config = json.loads((ROOT / "langgraph.json").read_text())
    assert config["checkpointer"] == {"path": "resin.agent.threads.checkpointer"}


def test_the_licensed_variant_keeps_its_own_database_and_redis(services):
    for name in ("server-1", "server-2"):
        server = services[name]
        assert server["profiles"] == ["licensed"] and "build" not in server
        assert (
            server["environment"]["DATABASE_URI"]
            .split("@")[1]
            .startswith("postgres:5432/langgraph")
        )
        assert server["environment"]["REDIS_URI"] == "redis://redis:6379"
        assert server["depends_on"]["redis"] == {"condition": "service_healthy"}
    assert "CREATE DATABASE langgraph" in (DEPLOY / "initdb.sql").read_text()


def test_the_builder_indexes_the_bundled_sample_unless_told(services):
    mounts = services["builder"]["volumes"]
    docs = next(m for m in mounts if m.endswith(":/docs:ro"))
    default = re.fullmatch(r"\$\{RESIN_DOCS:-(.+)\}:/docs:ro", docs)
    assert default, docs
    folder = (DEPLOY / default[1]).resolve()
    assert sorted(folder.glob("*.md")), folder
