"""A fine-tune named by its own name ("Dolly v2", "Zephyr", "WizardLM 13B", "两张4090能微调 Aurora 吗"): it keeps its
base model's architecture, so it is sized as that base (knowledge/data/model_names.yaml `fine_tunes`, each with its
model card's base model) and the answer says which base was read. Only when the rest of the parser named no model
of its own: a name the registry holds ("Vicuna-13B", "WizardLM-2-8x22B") keeps its row."""

from __future__ import annotations

import re
from functools import cache

from assistant.understanding.text import _State
from tools._data import load_yaml
from tools.notes import note

_SIZE = r"(?:[-_ ]?v?\d+(?:\.\d+)?(?![\d.]*b))?[-_ ]?(?P<size>\d+(?:\.\d+)?)\s?b(?![a-z0-9])"


@cache
def _entries() -> tuple[tuple[re.Pattern[str], dict], ...]:
    out = []
    for entry in load_yaml("model_names.yaml").get("fine_tunes", {}).values():
        rx = re.compile(f"(?<![a-z0-9])(?:{entry['pattern']})(?:{_SIZE})?(?![a-z0-9])", re.I)
        out.append((rx, entry))
    return tuple(out)


# the names also name their instruction sets ("the alpaca dataset", "databricks-dolly-15k", "alpaca 格式"): a name
# followed by such a word is data, not a model
_DATA_AFTER = re.compile(
    r"^[-_ ]?(?:\d+k\b|(?:cleaned|gpt4|zh|chinese)?[-_ ]?(?:data(?:set)?s?|format|style|template|prompts?|instructions?"
    r"|examples|samples|json)\b|数据|格式|模板|指令集|样本)",
    re.I,
)


def _named(text: str) -> tuple[re.Match[str], dict] | None:
    """The longest fine-tune name in the text (earliest on a tie): "code alpaca" over "alpaca"."""
    found = [(m, e) for rx, e in _entries() for m in rx.finditer(text) if not _DATA_AFTER.match(text[m.end() :])]
    return min(found, key=lambda f: (-(f[0].end() - f[0].start()), f[0].start())) if found else None


def _fine_tune(st: _State) -> None:
    from tools.models import registry

    q = st.q
    if q.model and q.model_how not in ("generic", "generic_moe", "scaled"):
        return
    hit = _named(st.t.text)
    if hit is None:
        return
    m, entry = hit
    size = float(m.group("size")) if m.group("size") else q.params_b
    sizes = {float(k): v for k, v in (entry.get("sizes") or {}).items()}
    base = entry["default"] if size is None else sizes.get(float(size))
    if base is None:
        return  # a size the fine-tune was not published in: the rest of the parser's reading stands
    others = [f"{k:g}B" for k in sorted(sizes) if sizes[k] != base and k == round(k)]
    other = [note("fine_tune_other_sizes", sizes=", ".join(others))] if others and m.group("size") is None else []
    typed, name, base_name = m.group(0).strip(), entry["name"], registry()[base].name
    q.model, q.model_how, q.model_mention, q.params_b = base, "read_as", typed, None
    q.models_mentioned, q.unknown_model, q.model_family, q.model_suggestions = [base], None, None, []
    if typed.lower() == name.lower():  # "Aurora" is Aurora: the name once
        q.notes.append(note("fine_tune_base_own_name", typed=typed, base=base_name, other=other))
    else:
        q.notes.append(note("fine_tune_base", typed=typed, name=name, base=base_name, other=other))


def _fine_tune_made(st: _State) -> None:
    """ "[sahil280114/codealpaca] How long did it take? — Assuming 8xA100 80gb", "Zephyr 7B 当时训练花了多久": the time
    asked of a fine-tune named by its own name, with no job and no serving word, is the time its fine-tuning takes
    (the base trained on its data), not how fast the finished model answers."""
    from assistant.understanding.lexicon import _lex, lexicon_raw

    q = st.q
    sizing = q.intents and set(q.intents) <= {"speed", "fit", "memory"}
    if q.model_how != "read_as" or not q.asks_time or q.mode or q.jobs or not sizing:
        return
    past = re.search(lexicon_raw()["dataset"]["past_run_time"], st.t.text, re.I)
    if not past or _lex().rx["mode_inference"].search(st.t.text):
        return
    q.fine_tune_unspecified, q.jobs = True, ["lora"]
    if q.rent_providers and "rent_where" not in q.intents:
        q.intents.append("rent_where")  # "Assuming Lambda Labs 8xA100": the run priced there (usage.py's rule)
