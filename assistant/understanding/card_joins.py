"""How two cards named one after the other are joined: one machine's cards ("3090+2060", "I have a 3090 and a
2060") or options to weigh ("8 张 4090 或者 6 张 V100", "A100 and H100: which is faster?")."""

from __future__ import annotations

import itertools
import re
from functools import cache

from assistant.understanding.lexicon import _lex
from assistant.understanding.text import _GpuSpan

_TOGETHER = re.compile(r"^[^,，;；。.?？!！]{0,24}?(?:\+|＋|加上?|plus|along with|together with)", re.I)


# "4060 8G 够不够？还是上 4060ti 16g", "is a 3060 enough, or should I get a 3090?": the next question offers the other
_OR_NEXT = re.compile(
    r"^[^。.!！]{0,16}?[?？,，]\s*(?:还是|或者|\bor\b)\s*(?:直接|干脆|should i |do i |shall i )?"
    r"(?:上|买|换|选|入|get|go with|buy|take)?\s*(?:一张|一块|a |an |the )?\s*$",
    re.I,
)
_ALTERNATIVE = re.compile(r"^[^,，;；。.?？!！]{0,24}?(?:或者|或是|或|还是|\bor\b|\bvs\.?|versus|/)", re.I)


# "and" joins the cards of one machine only when the user owns them ("I have a 3090 and a 2060"); otherwise it
# lists cards to weigh ("A100 and H100: which is faster?"), or adds one to buy ("a 3090 and want to buy a 4090")
_AND = re.compile(r"^[^,，;；。.?？!！]{0,12}?(?:\band\b|和|与|跟|以及|、|&)[^,，;；。.?？!！]{0,10}$", re.I)
# "我这还有一个5090D， A5000， 还有个2080TI": owned cards listed with commas and "还有" (also one machine's cards)
_LIST = re.compile(r"^\s*[,，、]\s*(?:还有|另外还?有|以及|and|plus)\s*(?:一?[个张块]|an?\b|one\b)?\s*$", re.I)
_CLAUSE_BEFORE = re.compile(r"[^;；。.?？!！\n]{0,40}$")
# "would a 4090 and 5090 together work?", "4090 和 5090 一起用", "3090 和 4060Ti 混用": two cards joined by "and"
# and then said to run together: one machine's cards, whoever owns them
_THEN_TOGETHER = re.compile(
    r"^\s*(?:cards?|gpus?|显卡|卡)?\s*(?:(?:work|run|be used|used|be mixed|mixed)\s+)?"
    r"(?:能不能|能否|能|可以|可不可以)?\s*(?:together|at the same time|in (?:one|the same) (?:machine|box|pc|rig)|"
    r"一起|混用|混插|混搭|同时用|组双卡)",
    re.I,
)


# "both my 3090 and 4090 get over 45", "my 3090 and 4090 both do 50 t/s", "我的3090和4090跑7B都能到45": a speed each
# card reaches on its own is two runs to weigh, not one machine's cards, even after "my"
_EACH_AFTER = re.compile(
    r"^[^,，;；。.?？!！]{0,30}?(?:\b(?:both|each)\b|都|各自|分别)[^,，;；。.?？!！\d]{0,14}\d", re.I
)
_BOTH_BEFORE = re.compile(r"\bboth\s+(?:(?:my|our|the)\s+)?$", re.I)
_MEASURED_AFTER = re.compile(
    r"^\s*(?:cards?|gpus?)?\s*(?:get|gets|got|do|does|did|hit|hits|reach|reaches|give|gives|manage|manages|"
    r"run at|runs at|are at|are getting)\b[^,，;；。.?？!！\d]{0,10}\d",
    re.I,
)


def _each_measured(view: str, a: _GpuSpan, b: _GpuSpan) -> bool:
    after = view[b.end :]
    return bool(_EACH_AFTER.match(after) or (_BOTH_BEFORE.search(view[: a.start]) and _MEASURED_AFTER.match(after)))


@cache
def _owns_word() -> re.Pattern[str]:
    owns = _lex().raw["machine"]["owns"]
    return re.compile("(?:" + "|".join([*owns["zh"], *owns["en"]]) + ")", re.I)


# "if i bought 5060 16GB ...", "如果买了 5090": a card bought in a supposition is an option, not one the user has
_SUPPOSED = re.compile(r"(?:\bif|\bwhat if|\bshould|如果|要是|假如|假设)\W{0,2}$", re.I)


# "论文中您用的是80G的H100", "作者用的是 A100": a card someone else used (the author's, the paper's) is not the user's
_SOMEONE_ELSE = re.compile(
    r"(?:你|您|他|她|作者|论文中?|官方|别人|人家|\byou\b|\bthey\b|\bthe (?:author|paper)s?\b)\s*$", re.I
)


def someone_else(before: str) -> bool:
    """The words before an ownership word name someone else ("您用的是", "the author used"): not the user's card."""
    return _SOMEONE_ELSE.search(before) is not None


def _owns(words: str) -> bool:
    m = _owns_word().search(words)
    if m is None or _OPTIONS_BEFORE.search(words[m.start() :]):
        return False  # "我现在有两个选项，3080": options the user has, not a card
    return not _SUPPOSED.search(words[: m.start()]) and not someone_else(words[: m.start()])


# "我现在有两个选项，3080，还有5060ti", "considering two options: ...", "deciding between a 4090 and a 5090": the cards
# that follow are the options of a choice; "这两个哪个更适合", "which of these two would you recommend" after them
_OPTIONS_BEFORE = re.compile(
    r"(?:[两二三几23]\s*个|\btwo|\bthree|\ba few)\s*(?:选项|选择|方案|候选|options?|choices?|candidates?)"
    r"|(?:options?|choices?|candidates?)\s*(?:are|is)?\s*[:：]|\bconsidering\b"
    r"|\b(?:deciding|choosing|choose|torn) between\b",
    re.I,
)
_WHICH_OF_THE_TWO = re.compile(
    r"(?:这|那)\s*(?:两|三|2|3|几)\s*(?:个|张|款|块)?\s*(?:显卡|卡|gpu)?\s*(?:里|中|之中)?\s*(?:哪|谁)"
    r"|\bwhich of (?:them|these two|those two|the two|these|those)\b(?!\s+(?:models?|sizes?|llms?))",
    re.I,
)


def weighed(view: str, known: list[_GpuSpan]) -> bool:
    """Two or more different cards named as the options of a choice: an options word before the first ("两个选项",
    "considering"), or "which of these two" after the last; not one machine's cards nor the user's own."""
    if len({s.value for s in known if s.value}) < 2:
        return False
    before = view[max(0, known[0].start - 40) : known[0].start]
    return bool(_OPTIONS_BEFORE.search(before) or _WHICH_OF_THE_TWO.search(view[known[-1].end :]))


# Ownership written after the card: "Got a 4090 already, ...", "a 4090 I already own", "4090 我已经有了",
# "3090再买一张" (one is had, another is to be bought). Only right after the card, before any clause break.
_OWNED_AFTER = re.compile(
    r"^\s*(?:(?:card|gpu)s?\s+)?(?:(?:that|which)\s+)?(?:i|we)\s+(?:already\s+)?(?:have|own|got)\b(?!\s+to\b)"
    r"|^\s*(?:(?:card|gpu)s?\s+)?already\s*(?:[,，;；.!?]|$|\b(?:and|but|so|in|on)\b)"
    r"|^\s*(?:显卡|卡)?\s*(?:我们?|自己)?\s*(?:已经|早就|早已|已)\s*有了?"
    r"|^\s*(?:显卡|卡)?\s*我们?有了"
    r"|^\s*(?:显卡|卡)?\s*再(?:买|加|入|来|配|上|添)\s*(?:一|1)\s*[张块个](?!\s*(?:rtx|gtx)?\s*\d)",
    re.I,
)


def _after_ends(view: str, spans: list[_GpuSpan]) -> list[int]:
    """Per card, where an ownership phrase right after it ends (the card's own end when there is none)."""
    starts = [*(s.start for s in spans[1:]), len(view)][: len(spans)]
    out = []
    for s, nxt in zip(spans, starts, strict=True):
        m = _OWNED_AFTER.match(view[s.end : nxt]) if s.value else None
        out.append(s.end + m.end() if m else s.end)
    return out


def owned_after(view: str, spans: list[_GpuSpan]) -> set[str]:
    """The cards an ownership phrase comes right after (up to the next card)."""
    return {s.value for s, end in zip(spans, _after_ends(view, spans), strict=True) if s.value and end > s.end}


# "如何同时使用3080 10g和2080ti 22g", "use both my 3090 and 3060 for one model": a word saying the cards run together
# written before them
_TOGETHER_BEFORE = re.compile(
    r"(?:同时|一起|混合|混搭|组合)\s*(?:使用|用|跑|部署|运行|插上?)\s*(?:nvidia|英伟达|n卡)?\s*的?\s*(?:rtx|gtx)?\s*$"
    r"|\b(?:use|combine|pool|split (?:it|a model|the model) (?:across|between|over))\s+(?:both\s+)?"
    r"(?:my\s+|our\s+|the\s+)?(?:nvidia\s+)?(?:rtx\s+|gtx\s+)?$",
    re.I,
)
# "Amd 5950x 64GB ram, Nvidia 3060 12GB, and 1080 8GB", "i9 + 64G 内存 + 3090 和 3060": cards listed in a machine's
# spec line, after its CPU or RAM, are that machine's cards
_SPEC_BEFORE = re.compile(
    r"(?:\bram\b|内存|\bddr[345]\b|\bcpu\b|ryzen|xeon|threadripper|epyc|\b\d{4}x3?d?\b|\bi[3579]-?\d{4,5})"
    r"[^;；。.?？!！\n]{0,40}$",
    re.I,
)


def together(view: str, known: list[_GpuSpan]) -> bool:
    """Two different cards joined by "+" / "加" / "plus" ("1张RTX5000ADA 32G+1张V100 32G"), or by "and" / "和"
    after an ownership word ("I have two GPUs: an RTX 3090 and a 2060", "我有一张3090和一张3060"): one machine's
    cards, not alternatives to weigh."""
    if any(_each_measured(view, a, b) for a, b in itertools.pairwise(known)) or weighed(view, known):
        return False  # each card measured on its own ("both do 60+ t/s"), or the options of a choice
    if len(known) > 1 and _which_of_them(view[known[1].end :]):
        return False  # "手上两张卡：A4000 和 2080Ti，哪张跑得快": the owned cards weighed against each other
    if _joined(_TOGETHER, view, known):
        return True
    for a, b in itertools.pairwise(known):
        clause = _CLAUSE_BEFORE.search(view[: a.start])
        owned = clause is not None and _owns_word().search(clause.group(0)) is not None
        joined = _AND.match(view[a.end : b.start]) or _LIST.match(view[a.end : b.start])
        if a.value != b.value and owned and joined:
            return True
        if a.value != b.value and _AND.match(view[a.end : b.start]) and _THEN_TOGETHER.match(view[b.end :]):
            return True
        before = view[max(0, a.start - 60) : a.start]
        if a.value != b.value and joined and (_TOGETHER_BEFORE.search(before) or _SPEC_BEFORE.search(before)):
            return True
    return False


def owned_card(view: str, spans: list[_GpuSpan], upgrade_to: str | None) -> str | None:
    """Of two or more different cards, the one an ownership word comes right before ("I have a 5090. Would two
    2080 Ti be better?", "我手上有5090"), or the other of two when one is to be bought ("我有4090，换成两张3090"):
    the card a comparison weighs the others against, since the user already has it."""
    values = {s.value for s in spans if s.value}
    if len(values) < 2:
        return None
    # the words before a card: back to the previous card (and its "4090 我已经有了"), 20 characters at most
    ends = [0, *_after_ends(view, spans)]
    before = [view[max(end, s.start - 20) : s.start] for s, end in zip(spans, ends[:-1], strict=True)]
    owned = {s.value for s, words in zip(spans, before, strict=True) if s.value and _owns(words)}
    owned |= owned_after(view, spans)
    if len(owned) == 1:
        return next(iter(owned))
    rest = values - {upgrade_to}
    return next(iter(rest)) if upgrade_to and len(values) == 2 and len(rest) == 1 and not owned else None


# "4090太贵了", "a 4090 is too expensive", "买不起 H100": a card ruled out by its price; the question is the other one
# ruled out by its price, or by the market ("A100国内很难买到", "H100s are impossible to get"): not the card asked about
_PRICED_AFTER = re.compile(
    r"^[^,，;；。.?？!！]{0,8}?(?:太贵|贵了|贵得|价格太高|too (?:expensive|pricey|costly)|(?:is|are) (?:so |way )?"
    r"(?:expensive|pricey)|out of (?:my |our )?budget|超预算|买不起|很难买|难买到|买不到|不好买|缺货|禁售"
    r"|(?:is|are) (?:hard|impossible) to (?:get|find|buy)|(?:is|are) unavailable)",
    re.I,
)
_PRICED_BEFORE = re.compile(r"(?:买不起|负担不起|can't afford|can(?:no|\s+no)t afford)[^,，;；。.?？!！]{0,8}$", re.I)


def priced_out(view: str, spans: list[_GpuSpan]) -> str | None:
    """Of two or more different cards, the one the user rules out by its price ("4090太贵了，2080ti 多卡能跑吗"):
    not a card to cost or size; the other card is what they ask about."""
    values = {s.value for s in spans if s.value}
    if len(values) < 2:
        return None
    out = {
        s.value
        for s in spans
        if s.value
        and (_PRICED_AFTER.search(view[s.end :]) or _PRICED_BEFORE.search(view[max(0, s.start - 16) : s.start]))
    }
    return next(iter(out)) if len(out) == 1 and len(values - out) >= 1 else None


# "我之前的v100，不适用，我正想更换显卡", "my old 1080 Ti is no longer supported, so I'm replacing it": the card being
# replaced is no option of the choice that follows
_UNFIT_AFTER = re.compile(
    r"^[^。.?？!！]{0,8}?(?:不适用|不支持了|已经不支持|不兼容|用不了了|被淘汰|淘汰了|太老了|太旧了"
    r"|is no longer supported|(?:is|are) not supported any ?more|isn\W?t supported any ?more"
    r"|no longer works|doesn\W?t work any ?more"
    r"|(?:is|are) too old|is unsupported)",
    re.I,
)
_REPLACING = re.compile(r"更换|换(?:掉|一?张|个|新)?(?:显卡|卡)|\breplac(?:e|ing)\b|\bupgrad(?:e|ing) from\b", re.I)


def replaced(view: str, spans: list[_GpuSpan]) -> str | None:
    """Of three or more different cards, the one said to no longer work in a message about replacing it: not an
    option to weigh (the others are)."""
    values = {s.value for s in spans if s.value}
    if len(values) < 3 or not _REPLACING.search(view):
        return None
    out = {s.value for s in spans if s.value and _UNFIT_AFTER.search(view[s.end :])}
    return next(iter(out)) if len(out) == 1 else None


def listed_total(counts: dict[str, int], mentions: list[str]) -> str | None:
    """The card whose count is the machine's total before a list of different cards ("two GPUs: an RTX 3090 and a
    2060" reads 2 before the 3090): the only count stated, equal to the number of cards listed."""
    if len(counts) == 1 and len(mentions) > 1:
        gpu, n = next(iter(counts.items()))
        return gpu if n == len(mentions) else None
    return None


def alternative(view: str, known: list[_GpuSpan]) -> bool:
    """Two different cards joined by "或者" / "or" / "vs": options to weigh; or a second card asked after the first
    in the same message ("2080ti 能跑吗，3060 呢", "can a P40 run it? what about a 3060?")."""
    if _joined(_ALTERNATIVE, view, known) or _joined(_OR_NEXT, view, known) or weighed(view, known):
        return True
    if _WHICH.search(view) and _joined(_LINE_LIST, view, known):
        return True  # "which GPU works best?\nNVIDIA RTX 4060\nJetson Orin 16GB": the candidates, one per line
    if _comma_listed(view, known):
        return True  # "Which graphics card is best? 1080ti sli, 2080ti, rtx3080": the candidates, comma by comma
    pairs = itertools.pairwise(known)
    return any(
        a.value != b.value and (_WHAT_ABOUT.search(view[a.end : b.start]) or _NE.match(view[b.end :])) for a, b in pairs
    )


# three or more different cards listed with commas after a "which" question ("Which graphics card is best for this
# program? 1080ti sli, 2080ti, rtx3080", "哪张卡最好：3090、4090、A6000"): the candidates, not one machine's cards
_COMMA_LIST = re.compile(r"^[ \t]*(?:sli|nvlink)?[ \t]*[,，、][ \t]*(?:or\b|and\b|或者?|还是)?[ \t]*$", re.I)


def _comma_listed(view: str, known: list[_GpuSpan]) -> bool:
    if len({s.value for s in known}) < 3 or not _WHICH.search(view[: known[0].start]):
        return False
    return all(_COMMA_LIST.match(view[a.end : b.start]) for a, b in itertools.pairwise(known))


# cards listed one per line (a bullet allowed) after a "which" question: options to weigh, not one machine's cards
_LINE_LIST = re.compile(r"^[ \t]*\n[\s\-*•·]*$")
_WHICH = re.compile(r"\bwhich\b|哪(?:个|张|款|块|一个|种)", re.I)
# "which of them is faster" after the cards ("哪张跑得快", "谁更强", "which one is faster"): one card against the other
_WHICH_OF_THEM = re.compile(
    r"(?:哪一?(?:张|块|个)|谁|\bwhich(?:\s+(?:one|card|gpu))?(?:\s+(?:is|would be|runs?|will be))?)\s*(?:卡|显卡)?\s*"
    r"(?:会)?\s*(?:跑得|跑起来|用起来|跑)?\s*(?:更|比较)?\s*(?:快|慢|强|faster|slower|better|stronger|quicker)",
    re.I,
)


def _which_of_them(after: str) -> bool:
    """A question weighing the cards named before; not an English relative clause after a comma ("ollama splits
    the load among both, which is slower": a report about the pair, not a choice between them)."""
    return any(not _relative(after, m) for m in _WHICH_OF_THEM.finditer(after))


def _relative(after: str, m: re.Match[str]) -> bool:
    """ ", which is slower." (no "one" / "card", the sentence not a question): a clause about what came before."""
    if not re.match(r"which\s+(?:is|would|will|runs?)\b", m.group(0), re.I):
        return False
    sentence_end = re.search(r"[.!?。！？]", after[m.end() :])
    asked = sentence_end is not None and sentence_end.group(0) in "?？"
    return after[: m.start()].rstrip().endswith(",") and not asked


_WHAT_ABOUT = re.compile(r"(?:what|how) about|换成|换个", re.I)
_NE = re.compile(r"^\s*(?:的话)?\s*呢")


def _joined(rx: re.Pattern[str], view: str, known: list[_GpuSpan]) -> bool:
    """Whether two different cards named one after the other are joined by `rx` ("+", "或者")."""
    pairs = itertools.pairwise(known)
    return any(a.value != b.value and rx.match(view[a.end : b.start]) for a, b in pairs)


# "would a 4090 be worth it", "换 4090 值吗 / 值不值 / 划算吗": the user weighs the switch itself
# "worth it", or whether the switch is needed at all ("should I get an M3 Max", "要不要换 4090", "有必要买吗")
_WORTH = re.compile(
    r"\bworth\b|值吗|值得|值不值|划算|should (?:i|we) (?:get|buy|upgrade|switch)"
    r"|do (?:i|we) (?:really )?need to (?:buy|get|upgrade)"
    r"|(?:which|what) (?:machine|computer|mac|gpu|card)s? should (?:i|we) (?:use|get|buy)|该(?:买|换)(?:哪|什么)"
    r"|要不要(?:换|买|升级)|有没有必要|有必要(?:换|买|升级)|需不需要(?:换|买|升级)|该不该(?:换|买)",
    re.I,
)


def owned_switch_weighed(view: str, owned: str | None, mentions: list[str]) -> bool:
    """ "I have a 3060; would a 4090 be worth it for Qwen2.5-14B?": a card the user has and one other card, the
    switch weighed for a model: what the owned card does now, what the other buys (x speed, memory) and its price
    (compare with `owned`), not the other card's fit alone nor a buy-vs-rent bill."""
    others = {g for g in mentions if g != owned}
    return owned is not None and owned in mentions and len(others) == 1 and _WORTH.search(view) is not None
