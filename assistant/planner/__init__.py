"""The offline planner: a deterministic chat model that parses a question and plans tool calls.

The message parser is the package `assistant.understanding` (`parse`, `ParsedQuery`, `Claim`, `Intent`),
below both the planner and the capabilities; it is not re-exported here.
"""
