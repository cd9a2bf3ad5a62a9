"""The resin agent: a LangGraph graph (`resin.agent.graph:graph`) and what its nodes need."""

from pathlib import Path

# The bundled sample corpus and its questions (`resin demo`, benchmarks).
SAMPLE_DIR = Path(__file__).parent / "sample"
