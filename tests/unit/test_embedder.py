import numpy as np
import pytest

from resin.indexes.embeddings import load_onnx_encoder, minilm_path

TEXTS = [
    "Who designed the Orrin Dam?",
    "Tessel",
    "The glacier retreated, and the river that it fed ran low for a decade. " * 30,
]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RESIN_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("RESIN_EMBED_ONNX", raising=False)
    return tmp_path / "onnx"


def torch_vectors(model, texts):
    return model.encode(texts, normalize_embeddings=True, show_progress_bar=False)


def test_onnx_export_matches_torch_and_is_reused(embedder, cache):
    model = embedder.model
    encoder = load_onnx_encoder(model, str(minilm_path()))
    assert encoder is not None
    (exported,) = cache.glob("*.onnx")
    # a padded batch in shuffled length order, and a text past the 256-token limit
    batch = TEXTS + TEXTS[::-1]
    assert np.abs(encoder.encode(batch, 2) - torch_vectors(model, batch)).max() < 1e-5
    stamp = exported.stat().st_mtime_ns
    assert load_onnx_encoder(model, str(minilm_path())) is not None
    assert exported.stat().st_mtime_ns == stamp  # opened, not exported again


def test_a_corrupt_export_falls_back_to_torch_then_is_rebuilt(embedder, cache, caplog):
    model = embedder.model
    assert load_onnx_encoder(model, str(minilm_path())) is not None
    (exported,) = cache.glob("*.onnx")
    exported.write_bytes(b"not a model")
    assert load_onnx_encoder(model, str(minilm_path())) is None
    assert "embedding with torch" in caplog.text
    assert not exported.exists()
    assert load_onnx_encoder(model, str(minilm_path())) is not None


def test_onnx_can_be_switched_off(embedder, cache, monkeypatch):
    monkeypatch.setenv("RESIN_EMBED_ONNX", "0")
    assert load_onnx_encoder(embedder.model, str(minilm_path())) is None
    assert not cache.exists()
