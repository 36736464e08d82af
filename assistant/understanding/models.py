"""Model names: families the lexicon lists ("Qwen2.5-7B", "千问2.5 7B"), model-looking names, their sizes.

Names resolve through tools.model_match.match_model (cached: the same spans recur across a conversation):
any name with a size or a family is computable, and `model_how` says how it was read.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import lru_cache

from assistant.understanding.lexicon import _lex
from assistant.understanding.machine import engine_default_model
from assistant.understanding.numbers import _number
from assistant.understanding.offered_pair import offered_before_slash
from assistant.understanding.patterns import _MASK
from assistant.understanding.query import ParsedQuery
from assistant.understanding.text import _MAX_SPANS, _State, repository_span
from tools.errors import AdvisorError
from tools.model_match import (
    coder_series,
    in_named_series,
    in_series_of,
    likely_models,
    match_model,
    of_family,
    series_in_name,
)
from tools.models import registry


@dataclass(frozen=True)
class _ModelHit:
    model: str | None  # a name every tool accepts: the registry id, or the name as typed when it was scaled
    how: str | None = None  # tools.model_match How: registry, read_as, ollama, scaled, generic, generic_moe
    note: str | None = None
    precision: str | None = None  # the weight format the name carries ("-AWQ", an Ollama tag's default build)
    suggestions: tuple[str, ...] = ()
    context_tokens: int | None = None  # a context the name states ("chatglm3-6b-128k")


_PLUS = re.compile(r"(?<=[a-z0-9])\s?\+$", re.I)


@lru_cache(maxsize=4096)
def _resolve_model_name(name: str) -> _ModelHit:
    """Any model name: the registry, the family's shape at the typed size, a generic decoder of that size
    (tools.model_match); only a name with neither size nor family stays unknown, with the likeliest models."""
    try:
        m = match_model(_PLUS.sub("-plus", name))  # "Command R+": the Plus model (Command-R-Plus)
    except AdvisorError as exc:
        return _ModelHit(None, suggestions=tuple(getattr(exc, "suggestions", None) or likely_models(name)))
    if m.library_default:  # "qwen2.5" with no size: a size elsewhere names the model, else the planner's default
        return _ModelHit(None, suggestions=tuple(likely_models(name)))
    model = m.arch.id if m.how in ("registry", "read_as", "ollama") else m.typed
    precision = m.precision if m.precision_how in ("name", "nearest", "ollama_default") else None
    read_as = f"'{name}' was read as {m.arch.name}" if m.how == "read_as" else None
    return _ModelHit(model, m.how, read_as, precision, context_tokens=m.context_tokens)


_Mention = tuple[int, int, str, str]  # start, end, the span as typed, the name to resolve
_OLLAMA_RUN = re.compile(r"ollama\s+(?:run|pull)\s+$", re.I)  # on the text: the view masks the engine name


def _family_mentions(st: _State) -> list[_Mention]:
    """Model names that start with a known family word ("Qwen2.5-7B", "千问2.5 7B", "llama")."""
    lex = _lex()
    mentions: list[_Mention] = []
    for m in itertools.islice(lex.rx["model"].finditer(st.t.view), _MAX_SPANS):
        fam_text, rest = m.group("fam"), m.group("rest") or ""
        to, bare = next(((to, bare) for rx, to, bare in lex.families if rx.match(fam_text)), (fam_text, False))
        # "solar:q4_0": an Ollama tag whose tag was read as the format names the library's default model
        tagged = rest in ("", ":") and st.t.view[m.end() - len(rest) : m.end() - len(rest) + 2] == f":{_MASK}"
        # "ollama run mistral", "ollama pull deepseek-r1": the library name is a tag, its default tag's model
        tagged = tagged or bool(_OLLAMA_RUN.search(st.t.text[max(0, m.start() - 24) : m.start()]))
        if not re.search(r"\d", rest) and not bare and not tagged:
            st.family_hint = st.family_hint or to  # "the code llama models ... 34B"
            continue  # "opt", "phi", "yi" alone are words, not model names
        offered = offered_before_slash(m, to)  # "LLama2/Mistral": two families offered, not an org/model id
        mentions += [(m.start(), m.start() + len(offered) - 1, offered[:-1], offered[:-1])] if offered else []
        start, span = m.start() + len(offered), m.group(0).strip()[len(offered) :]
        query = span if fam_text.isascii() else span.replace(fam_text, to, 1)  # "千问2.5-7B" -> "qwen2.5-7B"
        for zh, en in lex.raw["models"]["zh_name_words"].items():
            query = query.replace(zh, en)
        query = f"{query.rstrip(':')}:" if tagged and not re.search(r"\s|:.", span) else query
        mentions.append((start, start + len(span), span, query))
    return mentions


def _generic_mentions(st: _State, taken: list[_Mention]) -> list[_Mention]:
    """Model-looking names of families the lexicon does not list ("Foo-13B", "8x7b")."""
    lex = _lex()
    mentions: list[_Mention] = []
    for name in ("model_generic", "moe_size"):
        for m in itertools.islice(lex.rx[name].finditer(st.t.view), _MAX_SPANS):
            if any(s < m.end() and m.start() < e for s, e, _, _ in [*taken, *mentions]):
                continue
            if name == "model_generic" and lex.rx["not_model"].match(re.split(r"[-_.]", m.group(0))[0]):
                continue
            mentions.append((m.start(), m.end(), m.group(0), m.group(0)))
    return mentions


def _without_glued(names: list[str]) -> list[str]:
    """ "finetunefalcon-7b" beside "falcon-7b": a word glued to a model already named is that model, not a second
    (generic) one of the same size."""
    from tools.models import registry

    known = registry()
    return [n for n in names if n in known or not any(other != n and other in n for other in names)]


def _models(st: _State) -> None:
    mentions = _family_mentions(st)
    mentions += _generic_mentions(st, mentions)
    q, names = st.q, []
    hits = _one_generation([_resolve_model_name(query) for _, _, _, query in sorted(mentions)], sorted(mentions))
    lead = _lead_mention(sorted(mentions), hits)
    for i, ((start, end, span, _query), hit) in enumerate(zip(sorted(mentions), hits, strict=True)):
        st.name_spans.append((start, end))
        st.t.take(start, end)
        if not (hit.model and hit.model in names):
            st.models_found += 1  # one model named twice ("LLama 3.1 8b ... LLama 3.1 8b") is one model
        if hit.model:
            names.append(hit.model)
            st.model_ends.append((end, hit.model))
            names += _sibling_sizes(st, end, hit)  # "BaiChuan-7B/13B", "qwen2.5 7b、14b": each size of the series
            if q.model is None and i >= lead:
                q.model, q.model_mention, q.model_how = hit.model, span, hit.how
                q.notes += [hit.note] if hit.note else []
                q.model_precision = hit.precision
                if hit.context_tokens and q.context_tokens is None:  # "chatglm3-6b-128k" runs at 128k
                    q.context_tokens = hit.context_tokens
                    q.context_from_name = True
                if hit.precision and q.precision is None:  # "Qwen2-72B-Instruct-AWQ", "deepseek-r1:32b" (Q4_K_M)
                    q.precision = hit.precision
                    st.precisions_found.add(hit.precision)
                    st.precision_order.append(hit.precision)
        else:
            st.unknown_spans.append(span)
            if q.unknown_model is None:
                q.unknown_model = span
                q.model_suggestions = list(hit.suggestions)
                q.model_mention = q.model_mention or span
    q.models_mentioned = _without_glued(list(dict.fromkeys(names)))
    _series_word_settled(q)
    _base_of_finetune(st, sorted(mentions), hits)
    _repository_model(st)
    if q.model:
        q.params_b = None
    elif q.unknown_model:
        q.model_family = _bare_family(q.unknown_model) or series_in_name(q.unknown_model)
    elif st.family_hint:
        q.model_family = st.family_hint  # "the code llama models": a family the registry knows by that name
    if q.model_family and not q.model and q.params_b is None and _lex().rx["coding"].search(st.t.text):
        q.model_family = coder_series(q.model_family) or q.model_family  # "the best qwen coding model"


def _lead_mention(mentions: list[_Mention], hits: list[_ModelHit]) -> int:
    """The mention the question is about: the first one, unless it is a library name run with no size ("ollama
    run llama3.2", its default tag) and a later one names its size or variant ("ollama run llama4:scout" is slow)."""
    resolved = [i for i, hit in enumerate(hits) if hit.model]
    if not resolved or not mentions[resolved[0]][3].endswith(":"):
        return 0
    return next((i for i in resolved if not mentions[i][3].endswith(":")), 0)


# "X, which is a fine-tuned variant of Y", "基于 Y 微调的 X": between the two names, Y is X's base
_BASE_WORDS = re.compile(
    r"fine[- ]?tun\w*|finetun\w*|variant|derivative|derived|based on|built on|merge of|基于|微调|衍生|魔改", re.I
)


def _base_of_finetune(st: _State, mentions: list[_Mention], hits: list[_ModelHit]) -> None:
    """A name only its size resolves (a community fine-tune: "wizardLLM-70b") said to be a fine-tune of a
    registry model ("a fine-tuned variant of llama2-70b"): the base's architecture is the model to size."""
    q = st.q
    if q.model_how not in ("generic", "scaled") or len(mentions) < 2:
        return
    first = next(i for i, h in enumerate(hits) if h.model == q.model)
    for (start, _, _, _), hit in zip(mentions[first + 1 :], hits[first + 1 :], strict=False):
        between = st.t.text[mentions[first][1] : start]
        if hit.how in ("registry", "read_as") and hit.model and len(between) <= 60 and _BASE_WORDS.search(between):
            q.model, q.model_how, q.model_precision = hit.model, hit.how, hit.precision or q.model_precision
            q.models_mentioned = [hit.model, *(m for m in q.models_mentioned if m not in (hit.model, q.model_mention))]
            return


# sizes right after a model name, joined to it: "-7B/13B", "7b & 13b", "7B and 13B", "7b、14b、32b"
_MORE_SIZES = re.compile(
    r"^\s*(?:/|&|,|，|、|\band\b|\bor\b|和|与|及|或)\s*(?P<v>\d{1,4}(?:\.\d)?)\s*b(?![a-z0-9])", re.I
)
_SIZE_IN_ID = re.compile(r"(?<![0-9.])\d{1,4}(?:\.\d)?b(?![a-z0-9])")


def _sibling_sizes(st: _State, end: int, hit: _ModelHit) -> list[str]:
    """The same series at each size joined to the name ("BaiChuan-7B/13B" -> baichuan-13b), spans masked; a size
    whose sibling the registry does not list is left to the size reader. A family read loosely ("llama 7B/13B/70B":
    Llama 2) lists its sizes in the generation it was read as."""
    found: list[str] = []
    if hit.how not in ("registry", "read_as") or not hit.model or len(_SIZE_IN_ID.findall(hit.model)) != 1:
        return found
    while m := _MORE_SIZES.match(st.t.view[end:]):
        sibling = _resolve_model_name(_SIZE_IN_ID.sub(f"{m.group('v')}b", hit.model))
        if sibling.how != "registry" or not sibling.model:
            break
        found.append(sibling.model)
        st.t.take(end, end + m.end())
        end += m.end()
    return found


def _repository_model(st: _State) -> None:
    """In a model's own repository ("[QwenLM/Qwen] ... 就像ChatGLM2那样的说明") the thread is about that model: another
    family named in the message is a comparison or an example, so the repository's series is the model asked about
    (planner/plan.py then sizes its common sizes)."""
    q = st.q
    repo = repository_span(st.t.text)
    if repo and not (q.model or q.unknown_model or q.model_family):
        # "[Alibaba-NLP/DeepResearch] 自己部署成本有点高": no model named, the repository's own model (github_repos)
        series = series_in_name(st.t.text[repo[0] : repo[1]])
        q.model_family = series if series and series.startswith("series:") else None
        return
    if not (repo and q.model and q.unknown_model) or q.unknown_model not in st.t.text[repo[0] : repo[1]]:
        return
    series = series_in_name(q.unknown_model)
    if series and series.startswith("series:") and not any(of_family(m, series) for m in q.models_mentioned):
        q.model, q.model_how, q.model_precision = None, None, None
        q.models_mentioned = []
        q.model_mention = q.unknown_model


def _one_generation(hits: list[_ModelHit], mentions: list[_Mention]) -> list[_ModelHit]:
    """A name read loosely ("llama 70b": the newest Llama 70B) beside one that names its generation exactly ("llama 2
    70B", "Llama-2-7B", or a sizeless "llama2") is that generation's model: a message asks about one generation
    unless it names two."""
    anchors = [h.model for h in hits if h.model and h.how in ("registry", "ollama")]
    sizeless = [m[3] for m, h in zip(mentions, hits, strict=True) if not h.model]
    out = []
    for h in hits:
        sibling = in_series_of(h.model, anchors) if h.model and h.how == "read_as" and anchors else None
        if h.model and h.how == "read_as" and not anchors:
            sibling = next((s for name in sizeless if (s := in_named_series(h.model, name))), None)
        out.append(_ModelHit(sibling, "registry", precision=h.precision) if sibling else h)
    return out


def _series_word_settled(q: ParsedQuery) -> None:
    """ "llama2 ... llama-70B": the sizeless name was the series of the model read, not an unknown model."""
    # a scaled name ("qwen3.5 397b") has no registry entry, so no series to settle the sizeless word with
    entry = registry().get(q.model) if q.model and q.unknown_model else None
    if entry is None:
        return
    series = re.sub(r"[^a-z0-9.]", "", (entry.series or "").lower())
    if series and (series_in_name(q.unknown_model) or "").removeprefix("series:") == series:
        q.unknown_model, q.model_suggestions = None, []


def _bare_family(name: str) -> str | None:
    """The family a bare family word names ("llama", "千问" -> "qwen"), None for anything longer."""
    text = name.strip().lower()
    return next((to for rx, to, bare in _lex().families if bare and rx.match(text)), None)


def _family_with_size(st: _State) -> None:
    """A family named without a size and a bare size elsewhere ("the code llama models 34B", "llama ... the
    70b"): together they name one model."""
    q = st.q
    _sized_variant(st)
    _series_other_sizes(st)
    _tag_other_sizes(st)
    _families_side_by_side(st)
    family = q.unknown_model or st.family_hint
    if family and not q.model and len(q.sizes_mentioned) >= 2 and _lex().intent_rx["capacity"].search(st.t.text):
        return  # "最多能部署哪个 Qwen（如 14B、32B、72B）": the sizes are the options, the family is the question
    if q.model or not family or q.params_b is None:
        engine_default_model(st)  # "ktransformers 教程" with no model named: DeepSeek-R1
        return
    hit = _resolve_model_name(f"{family} {q.params_b:g}b")
    if hit.model and hit.how in ("registry", "read_as", "ollama", "scaled"):
        q.model, q.model_how, q.params_b, q.unknown_model = hit.model, hit.how, None, None
        q.model_suggestions = []
        q.models_mentioned = [hit.model]
        # "7, 13, 70b models for llama 2", "qwen2.5 的 7B、14B、72B": each size is that family's model, each answered
        for size in q.sizes_mentioned[1:]:
            other = _resolve_model_name(f"{family} {size:g}b")
            if other.model and other.how in ("registry", "ollama") and other.model not in q.models_mentioned:
                q.models_mentioned.append(other.model)


def _families_side_by_side(st: _State) -> None:
    """Two or more bare families and no size ("llama and qwen", "qwen和llama哪个"): each family at its common default
    size, as the planner sizes a lone one (its Ollama library's default tag, else the first of its common sizes),
    each sized side by side."""
    from tools.model_match import family_models, library_default

    q = st.q
    if q.model or q.params_b is not None or q.sizes_mentioned:
        return
    bare = {f: span for span in st.unknown_spans if (f := _bare_family(span))}
    families = list(bare)
    defaults = [library_default(bare[f]) for f in families]
    picks = [d.id if d else (family_models(f) or [None])[0] for f, d in zip(families, defaults, strict=True)]
    picks = [p for p in picks if p]
    if len(families) < 2 or len(picks) != len(families):
        return
    q.model, q.model_how, q.models_mentioned = picks[0], "read_as", picks
    q.unknown_model, q.model_family, q.model_suggestions = None, None, []


def _tag_other_sizes(st: _State) -> None:
    """An Ollama tag and a bare size elsewhere ("deepseek-r1:8b 跑得慢，70b的模型能跑吗"): the size is the same
    library's other tag (deepseek-r1:70b), another model to size beside the one run."""
    q = st.q
    if q.model_how != "ollama" or not q.model_mention or ":" not in q.model_mention:
        return
    library = q.model_mention.split(":")[0].strip()
    for m in _lex().params[0][0].finditer(st.t.view):
        size = _number(m.group("v"))
        if not size or not st.t.is_free(m.start(), m.end()):
            continue
        hit = _resolve_model_name(f"{library}:{size:g}b")
        if hit.how != "ollama":  # "deepseek:8b" is no library of its own: the family's model of that size
            hit = _resolve_model_name(f"{library} {size:g}b")
        if hit.how in ("ollama", "registry", "read_as") and hit.model and hit.model not in q.models_mentioned:
            q.models_mentioned.append(hit.model)
            st.t.take(m.start(), m.end())


_CLAUSE_BREAK = re.compile(r"[?？。!！;；,，\n]")


def _series_other_sizes(st: _State) -> None:
    """A model named with its size and bare sizes in a later clause ("Llama-2-70B-chat ... What about 7B and 13B
    also?", "Qwen2.5-72B 要几张卡？14B 和 32B 呢"): each size is the same series' model, another part to size. Not a
    size listed beside the name ("千问2.5-32B或者14B等大模型"): that names the kind of model the message is about."""
    q = st.q
    if q.model_how != "registry" or len(q.models_mentioned) != 1 or not q.model_mention:
        return
    entry = registry().get(q.model)
    if entry is None or not entry.series or not _SIZE_IN_ID.search(q.model_mention.lower()):
        return
    at = st.t.text.lower().find(q.model_mention.lower())  # the text: the view has the name masked
    after = at + len(q.model_mention) if at >= 0 else len(st.t.text)
    for m in _lex().params[0][0].finditer(st.t.view):
        size = _number(m.group("v"))
        if not size or m.start() < after or not st.t.is_free(m.start(), m.end()):
            continue
        if not _CLAUSE_BREAK.search(st.t.view[after : m.start()]):
            continue  # "32B或者14B": listed with the name, not asked after it
        hit = _resolve_model_name(f"{entry.series} {size:g}b")
        if hit.how == "registry" and hit.model and hit.model not in q.models_mentioned:
            q.models_mentioned.append(hit.model)
            st.t.take(m.start(), m.end())


def _sized_variant(st: _State) -> None:
    """A model named without a size and one bare size elsewhere that the model is not ("DeepSeek-R1 ... 我尝试部署
    32B", "Qwen3 ... the 14B"): the size names that model's variant (DeepSeek-R1-Distill-Qwen-32B, Qwen3-14B)."""
    q = st.q
    if not q.model or q.model_how != "registry" or len(q.models_mentioned) != 1 or not q.model_mention:
        return
    if _SIZE_IN_ID.search(q.model_mention.lower()):
        return  # "Llama-2-70B" names its size
    sizes: list[float] = []
    for m in _lex().params[0][0].finditer(st.t.view):
        size = _number(m.group("v"))
        if size and st.t.is_free(m.start(), m.end()) and all(abs(size - s) > 0.1 * s for s in sizes):
            sizes.append(size)
    if len(sizes) != 1:
        return
    own = registry()[q.model]
    own_b = own.official_params_b or own.params / 1e9
    if abs(own_b - sizes[0]) <= 0.15 * sizes[0]:
        return
    hit = _resolve_model_name(f"{q.model_mention} {sizes[0]:g}b")
    if hit.how not in ("registry", "read_as") or not hit.model or hit.model == q.model:
        return
    arch = registry()[hit.model]
    if abs((arch.official_params_b or arch.params / 1e9) - sizes[0]) <= 0.15 * sizes[0]:
        q.model, q.models_mentioned, q.model_precision = hit.model, [hit.model], hit.precision
