"""The chat's render pacing (assistant/web/pacing.py) and the cheap gr.skip() (assistant/web/fast_blocks.py)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import gradio as gr
import pandas as pd
import pytest
from gradio.state_holder import SessionState

from assistant.web.fast_blocks import FastBlocks
from assistant.web.pacing import paced


def test_a_fast_turn_is_one_final_batch() -> None:
    batches = list(paced(iter(range(500)), interval_s=60))
    assert [b.last for b in batches] == [True]
    assert batches[0].events == list(range(500))


def test_a_pending_event_is_rendered_without_waiting_for_the_next_one() -> None:
    """An LLM that calls a tool and then thinks: the tool bubble must show before the turn goes on."""
    gate = threading.Event()

    def events() -> Iterator[str]:
        yield "tool call"
        assert gate.wait(30), "the consumer never saw the first event"
        yield "answer"

    seen = []
    for batch in paced(events(), interval_s=0.01):
        seen.append((list(batch.events), batch.last))
        gate.set()  # only now may the stream go on
    assert seen[0] == (["tool call"], False)
    assert seen[-1][1] is True
    assert [e for events, _ in seen for e in events] == ["tool call", "answer"]


def test_events_before_a_failure_arrive_then_the_error_is_raised() -> None:
    def events() -> Iterator[str]:
        yield "tool call"
        raise ConnectionError("the LLM went away")

    got = []
    with pytest.raises(ConnectionError, match="went away"):
        for batch in paced(events(), interval_s=60):
            got += batch.events
    assert got == ["tool call"]


@pytest.fixture(scope="module")
def outputs_app() -> tuple[FastBlocks, object]:
    with FastBlocks() as demo:
        text = gr.Textbox()
        state = gr.State({"turn": 0})
        choice = gr.Dropdown(choices=["bf16", "int4"], value="bf16")
        plot = gr.BarPlot(x="gpu", y="gib")
        note = gr.Markdown()
        button = gr.Button()
        button.click(lambda: None, None, [text, state, choice, plot, note], api_name="go")
    fn = next(f for f in demo.fns.values() if f.api_name == "go")
    return demo, fn


def frame() -> pd.DataFrame:
    return pd.DataFrame({"gpu": ["RTX 4090", "H100"], "gib": [24.0, 80.0]})


# Built afresh for every call: Gradio consumes the update dicts it is given.
CASES = {
    "mixed": lambda: ["hello", {"turn": 1}, gr.skip(), frame(), gr.skip()],
    "one kept": lambda: [gr.skip(), gr.skip(), gr.skip(), gr.skip(), "**done**"],
    "all skipped": lambda: [gr.skip() for _ in range(5)],
    "updates and skips": lambda: [
        gr.skip(),
        gr.skip(),
        gr.update(value="int4"),
        None,
        gr.update(value="x", visible=False),
    ],
    "nothing skipped": lambda: ["a", {"turn": 2}, "int4", frame(), "b"],
}


@pytest.mark.parametrize("case", CASES)
def test_fast_blocks_output_is_exactly_what_gradio_sends(outputs_app: tuple, case: str) -> None:
    demo, fn = outputs_app
    ours = asyncio.run(demo.postprocess_data(fn, CASES[case](), SessionState(demo)))
    theirs = asyncio.run(gr.Blocks.postprocess_data(demo, fn, CASES[case](), SessionState(demo)))
    assert ours == theirs


# Handlers return updates keyed by component (text, state, choice, plot, note); the rest stay as they are.
KEYED = {
    "some components": lambda o: {o[0]: "hello", o[3]: frame()},
    "the state and one more": lambda o: {o[1]: {"turn": 3}, o[4]: "**done**"},
    "one component": lambda o: {o[2]: "int4"},
    "an update and a clear": lambda o: {o[2]: gr.update(value="int4"), o[3]: None},
    "every component": lambda o: {o[0]: "a", o[1]: {"turn": 2}, o[2]: "int4", o[3]: frame(), o[4]: "b"},
    "one skip for all": lambda o: gr.skip(),
}


@pytest.mark.parametrize("case", KEYED)
def test_fast_blocks_reads_updates_keyed_by_component_as_gradio_does(outputs_app: tuple, case: str) -> None:
    demo, fn = outputs_app
    ours, theirs = SessionState(demo), SessionState(demo)
    mine = asyncio.run(demo.postprocess_data(fn, KEYED[case](fn.outputs), ours))
    gradio = asyncio.run(gr.Blocks.postprocess_data(demo, fn, KEYED[case](fn.outputs), theirs))
    assert mine == gradio
    for block in fn.outputs:
        assert ours.config_values.get(block._id) == theirs.config_values.get(block._id)
    state_id = fn.outputs[1]._id
    assert ours.state_data.get(state_id) == theirs.state_data.get(state_id)


def test_components_left_out_of_a_keyed_update_skip_gradios_output_processing(
    outputs_app: tuple, monkeypatch: pytest.MonkeyPatch
) -> None:
    demo, fn = outputs_app
    processed: list[int] = []
    gradios = gr.Blocks.postprocess_data

    async def spy(self: gr.Blocks, block_fn: object, predictions: object, state: object) -> list:
        processed.append(len(block_fn.outputs))
        return await gradios(self, block_fn, predictions, state)

    monkeypatch.setattr(gr.Blocks, "postprocess_data", spy)
    asyncio.run(demo.postprocess_data(fn, KEYED["some components"](fn.outputs), SessionState(demo)))
    asyncio.run(demo.postprocess_data(fn, KEYED["one skip for all"](fn.outputs), SessionState(demo)))
    assert processed == [3, 1]  # what was given, plus the state (Gradio keeps its value at no cost)


def test_fast_blocks_keeps_the_session_values_gradio_keeps(outputs_app: tuple) -> None:
    demo, fn = outputs_app
    ours, theirs = SessionState(demo), SessionState(demo)
    asyncio.run(demo.postprocess_data(fn, CASES["mixed"](), ours))
    asyncio.run(gr.Blocks.postprocess_data(demo, fn, CASES["mixed"](), theirs))
    state_id = fn.outputs[1]._id
    assert ours[state_id] == theirs[state_id] == {"turn": 1}
    for block in fn.outputs:
        assert ours.config_values.get(block._id) == theirs.config_values.get(block._id)


def test_a_quiet_turn_still_shows_the_users_message_first() -> None:
    """rendered=False: nothing drawn yet; a slow first event must not keep the user's message off screen."""
    gate = threading.Event()

    def events() -> Iterator[str]:
        assert gate.wait(30), "the consumer was never given a chance to draw the user's message"
        yield "answer"

    batches = []
    for batch in paced(events(), interval_s=0.01, rendered=False):
        batches.append((list(batch.events), batch.last))
        gate.set()
    assert batches[0] == ([], False)
    assert batches[-1][1] is True and [e for events, _ in batches for e in events] == ["answer"]


def test_a_quick_unrendered_turn_is_drawn_once_complete() -> None:
    batches = list(paced(iter(["call", "result", "answer"]), interval_s=60, rendered=False))
    assert [(b.events, b.last) for b in batches] == [(["call", "result", "answer"], True)]


def test_renders_thin_out_when_many_turns_run_at_once() -> None:
    from assistant.web.pacing import Load

    load = Load(base_s=0.15, per=4)
    assert load.interval_s() == 0.15
    with load, load, load, load:
        assert load.interval_s() == 0.15  # up to `per` turns: the base rate
        with load, load, load, load:
            assert load.interval_s() == pytest.approx(0.30)
    assert load.interval_s() == 0.15  # every turn that ended was counted out
