"""The graph's nodes: rewrite, plan, dispatch (and its router), resolve_hop, compose."""

from agent.nodes.compose import compose
from agent.nodes.dispatch import dispatch, route_hops
from agent.nodes.plan import plan
from agent.nodes.resolve_hop import resolve_hop
from agent.nodes.rewrite import rewrite

__all__ = ["compose", "dispatch", "plan", "resolve_hop", "rewrite", "route_hops"]
