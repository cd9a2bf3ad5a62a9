"""The graph's nodes: plan, dispatch (and its router), resolve_hop, compose."""

from agent.nodes.compose import compose
from agent.nodes.dispatch import dispatch, route_hops
from agent.nodes.plan import plan
from agent.nodes.resolve_hop import resolve_hop

__all__ = ["compose", "dispatch", "plan", "resolve_hop", "route_hops"]
