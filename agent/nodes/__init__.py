"""The graph's nodes: rewrite, plan, dispatch (and its router), resolve_hop, compose."""

from resin.agent.nodes.compose import compose
from resin.agent.nodes.dispatch import dispatch, route_hops
from resin.agent.nodes.plan import plan
from resin.agent.nodes.resolve_hop import resolve_hop
from resin.agent.nodes.rewrite import rewrite

__all__ = ["compose", "dispatch", "plan", "resolve_hop", "rewrite", "route_hops"]
