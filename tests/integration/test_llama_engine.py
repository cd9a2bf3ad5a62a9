"""The embedded model on llama.cpp's server engine: parallel slots, streams, errors, the CLI."""

import threading
from typing import Literal

import pytest
from langchain_core.messages import HumanMessage
from pydantic import BaseModel

from resin.agent.llm import ModelBackendError, default_concurrency
from resin.agent.llm.llama_cpp import ChatLlamaCpp, smollm2_path
from resin.prompts.structured import json_schema_format

pytestmark = pytest.mark.slow


class Colour(BaseModel):
    colour: Literal["red", "blue"]


@pytest.fixture(scope="module")
def model() -> ChatLlamaCpp:
    """An engine of its own (its n_ctx differs from every other test's): two slots."""
    return ChatLlamaCpp(model_path=str(smollm2_path()), n_ctx=1024, slots=2, max_tokens=24)


def test_two_streams_are_decoded_at_once_on_two_slots(model):
    arrivals: list[str] = []
    lock = threading.Lock()

    start = threading.Barrier(2)

    def stream(name: str) -> None:
        start.wait()  # both requests in flight together, however busy the machine
        # long enough to overlap even when one request reaches the engine a little late
        story = [HumanMessage(f"Tell a short story about {name}.")]
        for chunk in model.stream(story, max_tokens=128):
            if chunk.content:
                with lock:
                    arrivals.append(name)

    threads = [threading.Thread(target=stream, args=(n,)) for n in ("ships", "owls")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert arrivals.count("ships") > 2 and arrivals.count("owls") > 2
    # one after another, each stream's tokens would arrive as one block: 1 switch
    switches = sum(a != b for a, b in zip(arrivals, arrivals[1:], strict=False))
    assert switches > 2


def test_a_stream_left_early_ends_and_the_next_call_has_its_figures(model):
    stream = model.stream([HumanMessage("Count from one to fifty in words.")])
    first = next(chunk for chunk in stream if chunk.content)
    stream.close()
    assert first.content
    prompt = [HumanMessage("Count from one to fifty in words.")]
    model.invoke(prompt, max_tokens=8)
    reply = model.invoke(prompt, max_tokens=8)
    usage = reply.usage_metadata
    assert usage["output_tokens"] == 8 and usage["input_tokens"] > 8
    # the same prompt again: all but its last token read back from a slot's cache
    assert usage["input_token_details"]["cache_read"] >= usage["input_tokens"] - 2
    assert reply.response_metadata["prompt_ms"] >= 0 < reply.response_metadata["generation_ms"]


def test_a_streamed_reply_counts_its_tokens(model):
    chunks = list(model.stream([HumanMessage("Name a colour.")], max_tokens=6))
    last = next(c.usage_metadata for c in chunks if c.usage_metadata)
    assert last["output_tokens"] == sum(1 for c in chunks if c.content) <= 6
    assert last["input_tokens"] >= model.count_tokens("Name a colour.")


def test_a_schema_constrains_the_reply(model):
    fmt = json_schema_format(Colour)
    reply = model.invoke([HumanMessage("Pick a colour.")], response_format=fmt, max_tokens=20)
    assert Colour.model_validate_json(reply.content).colour in ("red", "blue")


def test_a_prompt_over_the_context_is_one_clear_error(model):
    with pytest.raises(ModelBackendError, match="context"):
        model.invoke([HumanMessage("word " * 3000)])


def test_in_flight_requests_default_to_the_slot_count(monkeypatch):
    monkeypatch.setenv("RESIN_LLAMA_SLOTS", "3")
    assert default_concurrency("embedded") == 3 == default_concurrency("gguf:/m.gguf")
    assert default_concurrency(None) == 3
    assert default_concurrency("openai:m@http://h/v1") == 8 and default_concurrency("fake") == 1
    monkeypatch.setenv("RESIN_LLAMA_SLOTS", "two")
    with pytest.raises(ValueError, match="RESIN_LLAMA_SLOTS"):
        default_concurrency("embedded")
