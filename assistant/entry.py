"""The `gpu-advisor` command: the CLI (assistant/cli.py), started with pydantic models built on first use.

A terminal command answers once and exits. Pydantic builds each model's validator when its class is defined;
LangChain, LangGraph and the tools define hundreds of models one command never validates. With
`defer_build` they are built on first use instead: the same validation, only later, and ~0.3 s less of
`gpu-advisor ask` on a two-core machine (`make bench`, terminal section). It has to be set before those
modules are imported, hence this entry point; the long-running web app does not set it.
"""

from __future__ import annotations


def main() -> None:
    from pydantic import BaseModel

    BaseModel.model_config["defer_build"] = True
    from assistant.cli import main as cli_main

    cli_main()
