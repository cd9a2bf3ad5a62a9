"""Real backends: a Chroma server, llama.cpp's OpenAI-compatible server, the embedded SmolLM2."""

import shutil
import sys

import pytest

from resin.agent.llm import make_chat_model
from resin.indexes.build import Builder
from resin.indexes.documents import Document, make_passages
from resin.indexes.extraction import (
    EXTRACTION_LIMITS,
    ExtractionOutput,
    extract_passage,
    extraction_messages,
)
from resin.indexes.index_config import IndexMismatchError
from resin.prompts.structured import json_schema_format
from resin.testing.processes import free_port, running

from ..conftest import DOCS, SAMPLE_DOCS, make_legacy

pytestmark = pytest.mark.slow

PASSAGE = make_passages(
    Document(
        id="orrin",
        title="Orrin Dam",
        text="The Orrin Dam was designed by Hessa Varn. It was finished in 1911. "
        "Glacier melt raises the flow of the Tessel River.",
    )
)[0]


def test_index_on_a_chroma_server(tmp_path, open_index, fake_model, chroma_port):
    index = open_index(tmp_path / "local", chroma_host="127.0.0.1", chroma_port=chroma_port)
    report = Builder(index, fake_model).run(DOCS)
    assert report.units > 0
    assert index.vectors.count("units") == report.units
    assert index.vectors.count("passages") == 3
    hits = index.vectors.search("passages", index.embed(["who designed the dam"])[0], 1)
    assert hits[0].metadata["doc_id"] == "orrin"
    # nothing went to an embedded store
    assert not (tmp_path / "local" / "chroma").exists()


def test_two_indexes_on_one_chroma_server_keep_their_own_records(
    tmp_path, open_index, fake_model, chroma_port
):
    server = {"chroma_host": "127.0.0.1", "chroma_port": chroma_port}
    first, second = open_index(tmp_path / "a", **server), open_index(tmp_path / "b", **server)
    for index in (first, second):
        Builder(index, fake_model).run(DOCS)
    units = first.vectors.count("units")
    assert Builder(second, None).delete("orrin")
    assert second.vectors.count("passages") == 2
    # reopened, the first index finds its own collections, every record still there
    first.close()
    first = open_index(tmp_path / "a", **server)
    assert first.vectors.count("passages") == 3 and first.vectors.count("units") == units
    query = first.embed(["who designed the dam"])[0]
    assert first.vectors.search("passages", query, 1)[0].metadata["doc_id"] == "orrin"
    assert second.vectors.search("passages", query, 1)[0].metadata["doc_id"] != "orrin"


def test_an_older_index_on_a_server_is_refused_until_migrated(
    tmp_path, open_index, capsys, chroma_port
):
    from resin.cli import main
    server = {"chroma_host": "127.0.0.1", "chroma_port": chroma_port}
    make_legacy(open_and_build(open_index, tmp_path / "old", server))
    with pytest.raises(IndexMismatchError) as refused:
        open_index(tmp_path / "old", **server)
    command = f"resin index --migrate --index {tmp_path / 'old'} --chroma-host 127.0.0.1"
    assert command in str(refused.value)
    argv = command.split()[1:] + ["--chroma-port", str(chroma_port)]
    assert main(argv) == 0
    assert "uses collections resin-" in capsys.readouterr().out
    migrated = open_index(tmp_path / "old", **server)
    assert migrated.vectors.count("passages") == 3


def open_and_build(open_index, path, server):
    index = open_index(path, **server)
    Builder(index, None).run(DOCS)
    return index


@pytest.fixture(scope="module")
def llama_server():
    port = free_port()
    resin = shutil.which("resin") or str(sys.prefix) + "/bin/resin"
    cmd = [resin, "serve-model", "--port", str(port), "--slots", "2"]
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


def test_a_chroma_server_gone_mid_index_is_one_clear_line_and_the_rerun_resumes(
    tmp_path, open_index, capsys
):
    from resin.cli import main
    from resin.indexes.stores import StoreError

    chroma = shutil.which("chroma") or str(sys.prefix) + "/bin/chroma"
    port = free_port()
    cmd = [chroma, "run", "--path", str(tmp_path / "srv"), "--host", "127.0.0.1"]
    cmd += ["--port", str(port)]
    ready = f"http://127.0.0.1:{port}/api/v2/heartbeat"
    server = {"chroma_host": "127.0.0.1", "chroma_port": port}
    with running(cmd, ready) as proc:
        index = open_index(tmp_path / "ix", **server)

        def stop_after_first(done, total, report):
            if done == 1:
                proc.terminate()
                proc.wait()

        with pytest.raises(StoreError) as failure:
            Builder(index, None, batch_passages=1).run(DOCS, progress=stop_after_first)
    message = str(failure.value)
    assert message.startswith(f"Chroma server 127.0.0.1:{port}: ")
    assert "start the server" in message and "run the command again" in message
    assert "\n" not in message
    index.close()  # the CLI opens the index afresh, as its own process does
    # the CLI says the same in one line, no traceback
    argv = ["index", *(str(p) for p in SAMPLE_DOCS.glob("orrin*")), "--index", str(tmp_path / "ix")]
    argv += ["--chroma-host", "127.0.0.1", "--chroma-port", str(port)]
    assert main(argv) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: Chroma server 127.0.0.1:{port}: ") and "\n" not in err
    assert "Traceback" not in err
    # the server back on the same store: the rerun completes what was cut short
    index.close()
    with running(cmd, ready):
        reopened = open_index(tmp_path / "ix", **server)
        report = Builder(reopened, None).run(DOCS)
        assert report.documents_indexed >= 2 and reopened.vectors.count("passages") == 3
        assert all(r.complete for r in reopened.catalog.documents())
