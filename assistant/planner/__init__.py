"""The offline planner: a deterministic chat model that parses a question and plans tool calls.

The message parser is `assistant.planner.parse` (`parse`, `ParsedQuery`, `Claim`, `Intent`); it is not
re-exported here so that `assistant.planner.parse` always names the module, never the function.
"""
