"""The resin graph: rewrite → plan → dispatch → resolve_hop (parallel, per ready hop) → … → compose."""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph

from resin.agent.context import Context
from resin.agent.nodes import compose, dispatch, plan, resolve_hop, rewrite, route_hops
from resin.agent.state import InputState, OutputState, State


def make_builder(answer: bool = True) -> StateGraph[State, Context, InputState, OutputState]:
    """The graph's wiring; without `answer` it ends once every hop is resolved (retrieval only).

    The retriever (`resin.agent.retriever`) reads the evidence buffer that the hops fill and has
    no use for the composed answer, whose model call it would otherwise pay for.
    """
    builder = StateGraph(
        State, context_schema=Context, input_schema=InputState, output_schema=OutputState
    )
    builder.add_node("rewrite", rewrite)
    builder.add_node("plan", plan)
    builder.add_node("dispatch", dispatch)
    builder.add_node("resolve_hop", resolve_hop)  # type: ignore[arg-type]  # Send payload
    builder.add_edge(START, "rewrite")
    builder.add_edge("rewrite", "plan")
    builder.add_edge("plan", "dispatch")
    builder.add_edge("resolve_hop", "dispatch")
    if answer:
        builder.add_node("compose", compose)
        builder.add_conditional_edges("dispatch", route_hops, ["resolve_hop", "compose"])
        builder.add_edge("compose", END)
    else:
        builder.add_conditional_edges(
            "dispatch", route_hops, {"resolve_hop": "resolve_hop", "compose": END}
        )
    return builder


builder = make_builder()

# No checkpointer: `langgraph dev` and parent graphs bring their own.
graph = builder.compile(name="resin")
