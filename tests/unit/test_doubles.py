"""Test doubles live in tests/ and resin/testing only: production code and `resin doctor` never
import tests/, and the indexes, tools and agent import no double at all."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION = ["agent", "indexes", "tools", "prompts", "evals", "resin/cli", "resin/api.py"]


def _imports(path: Path) -> set[str]:
    """Every module a file imports, at its top or inside a function."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def _modules(room: str) -> list[Path]:
    path = ROOT / room
    return [path] if path.is_file() else sorted(path.rglob("*.py"))


def test_no_production_module_imports_the_tests_and_no_core_module_a_double():
    for room in PRODUCTION:
        for path in _modules(room):
            imported = _imports(path)
            assert not {m for m in imported if m == "tests" or m.startswith("tests.")}, path
            if room in ("agent", "indexes", "tools", "prompts"):
                assert not {m for m in imported if m.startswith("resin.testing")}, path


def test_resin_doctor_loads_its_fault_server_from_resin_testing_and_nothing_from_tests():
    code = (
        "import json, pkgutil, sys, importlib\n"
        "from resin.cli import build_parser\n"
        "build_parser().parse_args(['doctor'])\n"
        "import resin.evals.checks as checks\n"
        "for m in pkgutil.iter_modules(checks.__path__):\n"
        "    importlib.import_module('resin.evals.checks.' + m.name)\n"
        "print(json.dumps({n: getattr(m, '__file__', None) or '' for n, m in sys.modules.items()}))"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT.parent
    )
    modules = json.loads(run.stdout)
    tests = str(ROOT / "tests")
    assert not [n for n, f in modules.items() if n.split(".")[0] == "tests" or f.startswith(tests)]
    assert "resin.testing.faults" in modules and "resin.evals.doctor" in modules
