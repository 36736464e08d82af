"""The Calculators tab, built from the form declarations in forms.py: one sub-tab, one event and one API
endpoint per form, with the parameters named after the form's fields."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import gradio as gr

from assistant.web.forms import FORMS, Field, Form
from assistant.web.i18n import t
from assistant.web.labels import Labels
from assistant.web.plots import plot_update
from assistant.web.reports import CalcOutput, empty_table
from assistant.web.state import Session

COMPONENTS: dict[str, Callable[..., Any]] = {
    "dropdown": gr.Dropdown,
    "number": gr.Number,
    "checkbox": gr.Checkbox,
    "radio": gr.Radio,
    "checkboxes": gr.CheckboxGroup,
    "slider": gr.Slider,
}
PLOTS: dict[str, Callable[..., Any]] = {"bar": gr.BarPlot, "scatter": gr.ScatterPlot, "line": gr.LinePlot}


@dataclass
class FormView:
    """A form's components: its inputs in field order, the button and what shows the result."""

    form: Form
    inputs: list[Any]
    button: gr.Button
    markdown: gr.Markdown
    table: gr.Dataframe | None
    plots: dict[str, Any]  # by ChartSlot.key
    json: gr.JSON | None

    @property
    def outputs(self) -> list[Any]:
        """In the order the API returns them: summary, table, charts, full result."""
        tail = [self.json] if self.json is not None else []
        return [self.markdown, *([self.table] if self.table is not None else []), *self.plots.values(), *tail]

    def render(self, out: CalcOutput, lang: str) -> dict[Any, Any]:
        updates: dict[Any, Any] = {self.markdown: out.markdown}
        if self.table is not None:
            updates[self.table] = out.table
        for slot in self.form.charts:
            updates[self.plots[slot.key]] = plot_update(out.charts.get(slot.key), lang, slot.title)
        if self.json is not None:
            updates[self.json] = out.data.model_dump(mode="json") if out.data is not None else {}
        return updates

    def handler(self) -> Callable[..., Any]:
        """The event function: the session, then one parameter per field (the API documents their names)."""
        form = self.form

        def run(session: Session, *values: Any) -> dict[Any, Any]:
            return self.render(form.call(session.lang, *values), session.lang)

        def run_with_charts(session: Session, *values: Any) -> Iterator[dict[Any, Any]]:
            # Gradio's plots keep a stale colour legend when data and axes change in one update; from empty
            # they redraw correctly.
            yield dict.fromkeys(self.plots.values())
            yield run(session, *values)

        fn = run_with_charts if self.plots else run
        params = [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in ("session", *form.names)]
        fn.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        fn.__name__ = form.name
        fn.__doc__ = form.description
        return fn


def _input(L: Labels, form: Form, f: Field) -> Any:
    kwargs: dict[str, Any] = {"label": L.t(f.label), "elem_id": f"{form.name}-{f.name.replace('_', '-')}", **f.props}
    choices = f.options(L.lang)
    if choices is not None:
        kwargs["choices"] = choices
    component = COMPONENTS[f.kind](value=f.initial(L.lang), **kwargs)
    if f.choice_labels is None:
        return L(component, f.label)
    return L.add(component, lambda lg: {"label": t(lg, f.label), "choices": f.options(lg)})


def _charts(L: Labels, form: Form) -> dict[str, Any]:
    with gr.Row():
        return {
            c.key: L(PLOTS[c.kind](label=L.t(c.title), elem_id=c.elem_id), c.title)
            for c in form.charts
        }  # fmt: skip


def _view(L: Labels, form: Form) -> FormView:
    inputs: dict[str, Any] = {}
    for row in sorted({f.row for f in form.fields}):
        with gr.Row():
            inputs |= {f.name: _input(L, form, f) for f in form.fields if f.row == row}
    button = L(gr.Button(L.t("run"), variant="primary", elem_id=f"{form.name}-run"), "run", "value")
    # A chart leads a one-line summary; a table follows its heading line, its charts under it.
    plots = _charts(L, form) if form.charts and form.table is None else {}
    markdown = gr.Markdown(elem_id=f"{form.name}-result")
    table = None
    if form.table is not None:
        table = gr.Dataframe(
            empty_table(L.lang, form.table),
            interactive=False,
            elem_id=f"{form.name}-table",
            max_height=form.table_height,
            wrap=True,
        )
        plots = _charts(L, form) if form.charts else {}
    json = None
    if form.json:
        with L(gr.Accordion(L.t("details_json"), open=False), "details_json"):
            json = gr.JSON(elem_id=f"{form.name}-json")
    return FormView(form, [inputs[n] for n in form.names], button, markdown, table, plots, json)


def calculators_tab(L: Labels) -> list[FormView]:
    """The sub-tab of every form (built inside the Calculators tab)."""
    views = []
    with gr.Tabs():
        for form in FORMS:
            with L(gr.Tab(L.t(form.title), id=f"calc-{form.name}"), form.title):
                views.append(_view(L, form))
    return views


def wire(views: list[FormView], state: gr.State) -> None:
    for view in views:
        view.button.click(view.handler(), [state, *view.inputs], view.outputs, api_name=view.form.name)
