"""The embedded model's prompt cache: a shared prefix is read back, never another prompt's state."""

import json

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from resin.agent.answering.answer import choice_format, structured_call
from resin.agent.llm.llama_cpp import ChatLlamaCpp, smollm2_path
from resin.prompts import ANSWER_CHOICE_SYSTEM, ANSWER_CHOICE_USER, PLAN_SYSTEM, PLAN_USER

pytestmark = pytest.mark.slow

CHOICES = ["Caldmere", "Lindmoor", "Hessa Varn"]


def fresh(n_ctx: int) -> ChatLlamaCpp:
    """A model on a llama.cpp engine of its own (one per n_ctx): nothing cached before."""
    return ChatLlamaCpp(model_path=str(smollm2_path()), n_ctx=n_ctx)


def choice_messages(question: str) -> list:
    evidence = "- Hessa Varn was born in the port of Caldmere.\n- Lindmoor is a town on the Tessel."
    user = ANSWER_CHOICE_USER.format(
        evidence=evidence, question=question, choices=" | ".join(CHOICES)
    )
    return [SystemMessage(ANSWER_CHOICE_SYSTEM), HumanMessage(user)]


def plan_messages(question: str) -> list:
    return [SystemMessage(PLAN_SYSTEM), HumanMessage(PLAN_USER.format(question=question))]


def pick(model: ChatLlamaCpp, question: str):
    return structured_call(model, choice_format(CHOICES), 20).invoke(choice_messages(question))


def cache_read(reply) -> int:
    return reply.usage_metadata["input_token_details"]["cache_read"]


def test_the_second_call_reads_the_system_prompt_from_the_cache_after_another_prompt():
    model = fresh(1536)
    first = pick(model, "Where was Hessa Varn born?")
    assert cache_read(first) == 0  # a fresh context holds nothing
    model.invoke(plan_messages("Who designed the Orrin Dam?"))  # another prompt in between
    second = pick(model, "Which town lies on the Tessel?")
    assert system_tokens(model) <= cache_read(second) < second.usage_metadata["input_tokens"]
    assert second.content.startswith("{") and parsed_choice(second) in CHOICES


def system_tokens(model: ChatLlamaCpp) -> int:
    """Tokens of the answer prompt's system turn, in SmolLM2's chat template."""
    return model.count_tokens(f"<|im_start|>system\n{ANSWER_CHOICE_SYSTEM}<|im_end|>\n")


def parsed_choice(reply) -> str:
    return json.loads(reply.content)["answer"]


def test_a_cached_prefix_changes_no_answer_and_keeps_the_grammar():
    """The same prompt gives the same reply on a fresh context and after the cache served others."""
    question = "Where was Hessa Varn born?"
    expected = pick(fresh(1280), question).content
    model = fresh(1792)
    pick(model, "Which town lies on the Tessel?")
    model.invoke(plan_messages("Who designed the Orrin Dam?"))
    again = pick(model, question)
    assert cache_read(again) >= system_tokens(model)
    assert again.content == expected and parsed_choice(again) in CHOICES


def test_the_answer_event_reports_llama_cpp_time_and_the_prompt_read_from_the_cache(
    sample_index,
):
    from resin.agent.context import Context
    from resin.agent.graph import graph

    ctx = Context(  # choices: the embedded model answers (auto ranks without it)
        index_path=str(sample_index),
        compose_model="embedded",
        hop_model="embedded",
        answer_mode="choices",
    )
    answers = []
    for question in ("Who designed the Orrin Dam?", "Which river flows past Lindmoor?"):
        parts = graph.stream({"question": question}, context=ctx, stream_mode=["custom"])
        answers += [p for _, p in parts if p.get("event") == "answer"]
    first, second = answers
    assert 0 < first["model_seconds"] <= first["seconds"]
    assert second["cached_tokens"] >= system_tokens(fresh(4096))  # the shared system prompt
