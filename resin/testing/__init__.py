"""Test doubles for apps that embed resin and for resin's own checks: no model, no network.

`resin.testing.chat` holds scripted chat models (register one with
`resin.agent.llm.register_chat_model` to run the graph with no model),
`resin.testing.processes` runs a server process on loopback until a block ends, and
`resin.testing.faults` is an OpenAI-compatible server that fails on purpose (`resin doctor`).
Nothing in resin's agent, tools or indexes imports this package.
"""
