"""`gr.Blocks` with a cheap `gr.skip()`.

Gradio treats a skipped output as an update with no properties and rebuilds the component from its
constructor arguments to apply it (a fresh component, `inspect.signature` of its `__init__`, its whole
config): about 1.5 ms per skipped output on our machine. A chat turn yields several times into 15
outputs, most of them left out, so under load that rebuilding was the largest single cost of a turn.
A bare skip changes nothing, so here it bypasses Gradio's output processing and goes to the browser
as the same `{"__type__": "update"}` Gradio itself would send (tests/test_web_pacing.py checks that the
result is identical to Gradio's own, so an upgrade that changes the semantics fails a test).

Handlers return updates keyed by component; Gradio turns such a dict into one skip per component left
out, so the dict is put in output order first and those skips take the cheap path too.
"""

from __future__ import annotations

import copy
from typing import Any

import gradio as gr
from gradio.blocks import Block, convert_component_dict_to_list


def _is_bare_skip(value: Any) -> bool:
    return type(value) is dict and len(value) == 1 and value.get("__type__") == "update"


def _positional(outputs: list[Any], predictions: Any) -> Any:
    """A handler's return value as one value per output, where Gradio would read it so."""
    if _is_bare_skip(predictions):  # one skip for every output
        return [gr.skip() for _ in outputs]
    if isinstance(predictions, dict) and predictions and all(isinstance(k, Block) for k in predictions):
        return convert_component_dict_to_list(outputs, predictions)
    return predictions


class FastBlocks(gr.Blocks):
    async def postprocess_data(self, block_fn: Any, predictions: Any, state: Any) -> list[Any]:
        outputs = list(block_fn.outputs)
        if len(outputs) < 2 or getattr(block_fn, "batch", False):
            return await super().postprocess_data(block_fn, predictions, state)
        predictions = _positional(outputs, predictions)
        if not isinstance(predictions, (list, tuple)) or len(predictions) != len(outputs):
            return await super().postprocess_data(block_fn, predictions, state)
        # State outputs keep Gradio's handling (their skips are free and they hold the session's values).
        skipped = {
            i for i, (block, value) in enumerate(zip(outputs, predictions, strict=True))
            if _is_bare_skip(value) and not getattr(block, "stateful", False)
        }  # fmt: skip
        if not skipped:
            return await super().postprocess_data(block_fn, predictions, state)
        kept = [i for i in range(len(outputs)) if i not in skipped]
        result: list[Any] = [{"__type__": "update"} for _ in outputs]
        if kept:
            narrowed = copy.copy(block_fn)
            narrowed.outputs = [outputs[i] for i in kept]
            # Gradio wraps the return value of a one-output function in a list itself.
            values = predictions[kept[0]] if len(kept) == 1 else [predictions[i] for i in kept]
            processed = await super().postprocess_data(narrowed, values, state)
            for i, value in zip(kept, processed, strict=True):
                result[i] = value
        return result
