"""Real backends: a Chroma server, llama.cpp's OpenAI-compatible server, the embedded SmolLM2."""

import shutil
import sys

import pytest

from agent.models import make_chat_model, smollm2_path
from indexes.build import Builder
from indexes.documents import Document, make_passages
from indexes.extraction import (
    EXTRACTION_LIMITS,
    ExtractionOutput,
    extract_passage,
    extraction_messages,
    json_schema_format,
)
from tests.integration.servers import free_port, running
from tests.unit.test_build import DOCS

pytestmark = pytest.mark.slow

PASSAGE = make_passages(
    Document(
        id="orrin",
        title="Orrin Dam",
        text="The Orrin Dam was designed by Hessa Varn. It was finished in 1911. "
        "Glacier melt raises the flow of the Tessel River.",
    )
)[0]


def test_index_on_a_chroma_server(tmp_path, open_index, fake_model):
    chroma = shutil.which("chroma") or str(sys.prefix) + "/bin/chroma"
    port = free_port()
    cmd = [
        chroma,
        "run",
        "--path",
        str(tmp_path / "server"),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    with running(cmd, f"http://127.0.0.1:{port}/api/v2/heartbeat"):
        index = open_index(tmp_path / "local", chroma_host="127.0.0.1", chroma_port=port)
        report = Builder(index, fake_model).run(DOCS)
        assert report.units > 0
        assert index.vectors.count("units") == report.units
        assert index.vectors.count("passages") == 3
        hits = index.vectors.search("passages", index.embed(["who designed the dam"])[0], 1)
        assert hits[0].metadata["doc_id"] == "orrin"
        # nothing went to an embedded store
        assert not (tmp_path / "local" / "chroma").exists()


@pytest.fixture(scope="module")
def llama_server():
    port = free_port()
    cmd = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(smollm2_path()),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "4096",
    ]
    with running(cmd, f"http://127.0.0.1:{port}/v1/models", timeout=180):
        yield f"http://127.0.0.1:{port}/v1"


def test_openai_compatible_server_gives_schema_valid_units(llama_server):
    model = make_chat_model(f"openai:smollm2@{llama_server}")
    result = extract_passage(model, PASSAGE)
    assert result.ok, result.error
    assert result.prompt_tokens > 0 and result.completion_tokens > 0
    assert result.proposed == result.ungrounded + result.invalid + len(result.units)
    for unit in result.units:
        assert unit.passage_id == PASSAGE.id and unit.sentence_ids


def test_embedded_smollm2_gives_schema_valid_units():
    model = make_chat_model("embedded")
    constrained = model.bind(
        response_format=json_schema_format(ExtractionOutput, EXTRACTION_LIMITS), max_tokens=600
    )
    reply = constrained.invoke(extraction_messages(PASSAGE))
    parsed = ExtractionOutput.model_validate_json(reply.content)  # schema-valid, or this raises
    assert len(parsed.units) <= EXTRACTION_LIMITS["items"]
    assert reply.usage_metadata["output_tokens"] > 0
    result = extract_passage(model, PASSAGE)
    assert result.ok, result.error
    assert result.proposed == result.ungrounded + result.invalid + len(result.units)
    for unit in result.units:  # whatever survived is grounded in a real sentence
        assert unit.evidence in PASSAGE.text and unit.sentence_ids
