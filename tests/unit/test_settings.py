"""Every CLI setting from its RESIN_* variable (the flag wins), documented in one table; secrets
masked in every database message."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from resin.cli import build_parser, main
from resin.cli.settings import COMMANDS, ENV, settings_table
from resin.indexes.database import DatabaseError, check_url, database_failure, shown_url
from resin.indexes.index_config import IndexConfig, index_command

ROOT = Path(__file__).resolve().parents[2]
MARKER = "<!-- settings table: tests/unit/test_settings.py keeps it equal to the flags -->"


@pytest.fixture
def clean_env(monkeypatch):
    for variable in ENV.values():
        monkeypatch.delenv(variable, raising=False)
    return monkeypatch


def test_the_deployment_doc_shows_the_table_of_the_flags(clean_env):
    text = (ROOT / "docs" / "deployment.md").read_text(encoding="utf-8")
    assert MARKER in text
    lines = text.split(MARKER, 1)[1].strip().splitlines()
    shown = "\n".join(itertools.takewhile(lambda line: line.startswith("|"), lines))
    expected = settings_table(build_parser())
    assert shown == expected, f"docs/deployment.md's settings table should read:\n{expected}"


def test_every_variable_is_a_flag_of_a_command_and_named_in_its_help(clean_env):
    parser = build_parser()
    table = settings_table(parser)
    for flag, variable in ENV.items():
        assert f"| `{variable}` | `{flag}` |" in table
    helps = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    for command in COMMANDS:
        for action in helps[command]._actions:
            if any(s in ENV for s in action.option_strings):
                assert action.help.endswith(f"[env {ENV[action.option_strings[0]]}]")


def test_variables_set_the_defaults_and_flags_win(clean_env):
    clean_env.setenv("RESIN_CHROMA_HOST", "chroma-box")
    clean_env.setenv("RESIN_CHROMA_PORT", "8123")
    clean_env.setenv("RESIN_DATABASE_URL", "postgresql://resin@db/resin")
    clean_env.setenv("RESIN_EXTRACT", "none")
    clean_env.setenv("RESIN_NO_WAIT", "yes")
    clean_env.setenv("RESIN_K", "9")
    clean_env.setenv("RESIN_THREAD", "t7")
    args = build_parser().parse_args(["index", "docs"])
    assert (args.chroma_host, args.chroma_port, args.extract) == ("chroma-box", 8123, "none")
    assert args.index_database == "postgresql://resin@db/resin" and args.no_wait is True
    args = build_parser().parse_args(["index", "docs", "--chroma-port", "9000", "--extract", "nlp"])
    assert (args.chroma_host, args.chroma_port, args.extract) == ("chroma-box", 9000, "nlp")
    assert build_parser().parse_args(["ask", "q", "--k", "3"]).k == 3
    assert build_parser().parse_args(["ask", "q"]).k == 9
    assert build_parser().parse_args(["chat"]).thread == "t7"


@pytest.mark.parametrize(
    ("variable", "value", "says"),
    [
        ("RESIN_K", "many", "error: RESIN_K='many': --k refuses it ("),
        ("RESIN_ANSWER_MODE", "best", "error: RESIN_ANSWER_MODE='best': give one of auto, "),
        ("RESIN_NO_WAIT", "perhaps", "error: RESIN_NO_WAIT='perhaps': give one of 1, true"),
    ],
)
def test_a_refused_variable_is_named_in_one_line(clean_env, capsys, variable, value, says):
    clean_env.setenv(variable, value)
    command = ["index", "docs"] if variable == "RESIN_NO_WAIT" else ["ask", "q"]
    assert main(command) == 2
    err = capsys.readouterr().err
    assert err.startswith(says) and len(err.strip().splitlines()) == 1
    # another command, which does not take it, is not refused for it
    assert build_parser().parse_args(["stats"]).index == Path(".resin")


def test_urls_and_driver_messages_are_shown_with_their_secrets_masked():
    assert (
        shown_url("postgresql://resin:s3cret@db:5432/resin")
        == "postgresql://resin:***@db:5432/resin"
    )
    assert shown_url("postgresql://db/resin?password=s3cret&sslmode=require") == (
        "postgresql://db/resin?password=***&sslmode=require"
    )
    with pytest.raises(DatabaseError) as refused:
        check_url("host=db password=s3cret")
    assert "s3cret" not in str(refused.value) and "is no PostgreSQL URL" in str(refused.value)
    with pytest.raises(DatabaseError, match=r"'mysql://u:\*\*\*@db/x' is no PostgreSQL URL"):
        check_url("mysql://u:s3cret@db/x")
    failure = database_failure(
        "postgresql://resin:s3cret@db/resin",
        RuntimeError('missing "=" after "postgresql://resin:s3cret@db"\n  in connection info'),
    )
    assert "s3cret" not in str(failure) and "\n" not in str(failure)
    assert str(failure).startswith("database postgresql://resin:***@db/resin: ")


def test_the_repair_hint_repeats_the_database_and_chroma_in_use(tmp_path):
    config = IndexConfig(tmp_path, "postgresql://resin:s3cret@db/resin", "chroma-box", 8123)
    assert index_command(config, "--repair") == (
        f"resin index --repair --index {tmp_path} --database postgresql://resin:***@db/resin "
        "--chroma-host chroma-box --chroma-port 8123"
    )
    assert index_command(IndexConfig(tmp_path), "--repair") == (
        f"resin index --repair --index {tmp_path}"
    )
