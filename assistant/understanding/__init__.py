"""Understanding one user message (Chinese or English, as people type it): the slots the planner needs.

All wording lives in knowledge/data/lexicon.yaml; this package holds the extraction order and logic, one
module per thing read (models, hardware, money_time, workload, claims, requirements, intents) over the
compiled lexicon (lexicon, patterns), the message being read (text, numbers) and the
result (query). Slots are read in a fixed order and every span a slot uses is masked, so later slots never
read it again: "4090" taken as a GPU is not a budget, "7B" inside "Qwen2.5-7B" is not a bare size, "8k"
read as a context length is not eight thousand yuan. Names resolve through the calculators' own resolvers
(tools.models.resolve_model, tools.catalog.resolve_gpu), so every id here is one the tools accept.

`parse` never raises: any input (empty, binary noise, huge numbers) gives a ParsedQuery, with
`unparsed=True` when nothing usable was found. This package sits below the planner and the capabilities:
it imports only assistant.language and tools.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from assistant.language import detect_language
from assistant.understanding.accel_slower import _accel_slower
from assistant.understanding.accelerators import _accelerator, _accelerator_intents
from assistant.understanding.add_card import _adds_card
from assistant.understanding.apps import _app_asked, _replaced_card
from assistant.understanding.asked_count import _asked_count
from assistant.understanding.bits_per_weight import _bits_per_weight
from assistant.understanding.board_gpus import _general_count_of_board
from assistant.understanding.card_counts import _card_counts
from assistant.understanding.card_memory import _card_memory_intents, _stated_card_memory
from assistant.understanding.ceiling import _size_ceiling
from assistant.understanding.claims import _concepts, _cues, _quoted_numbers, _topics
from assistant.understanding.closed_products import _closed_product_asked
from assistant.understanding.dataset import _dataset
from assistant.understanding.driver_mod import _driver_mod
from assistant.understanding.engine import _engine
from assistant.understanding.fine_tunes import _fine_tune, _fine_tune_made
from assistant.understanding.focus import _focus
from assistant.understanding.free_compute import _free_compute
from assistant.understanding.hardware import _catalog_vram, _gpus, _min_vram, _stated_capacity
from assistant.understanding.intents import _intents, _is_followup
from assistant.understanding.job_cards import _job_cards
from assistant.understanding.laptop import _laptop_card
from assistant.understanding.lexicon import _lex, lexicon_pattern, lexicon_raw, persona_in
from assistant.understanding.lost_work import _lost_work
from assistant.understanding.mac_memory import _mac_without_chip
from assistant.understanding.mac_studio import _mac_memory_no_floor, _mac_studio_config
from assistant.understanding.machine import _machine
from assistant.understanding.memory_pair import _memory_pair, _version_in_use
from assistant.understanding.models import _family_with_size, _models
from assistant.understanding.money_time import _electricity, _horizon, _hours, _money, _per_hour_price
from assistant.understanding.notebook_rent import _notebook_rent
from assistant.understanding.notebook_tier import _notebook_tier
from assistant.understanding.pcie import _pcie, _pcie_capacity
from assistant.understanding.power import _psu_question, _stated_psu
from assistant.understanding.precedent import _precedent
from assistant.understanding.quantized_file import quantized_target
from assistant.understanding.query import Claim, Intent, Mode, ParsedQuery
from assistant.understanding.ram_only import layers_to_ram, ram_only_run
from assistant.understanding.rate_per_minute import _rate_per_minute
from assistant.understanding.rent_together import _rent_together
from assistant.understanding.requirements import (
    _drop_feature_precision,
    _precisions_mentioned,
    _requirements,
    _unquantized,
)
from assistant.understanding.ruled_out import _ruled_out
from assistant.understanding.run_log import _run_log
from assistant.understanding.scaling import _scaling
from assistant.understanding.server_nodes import _server_nodes
from assistant.understanding.sharers import _sharers
from assistant.understanding.size_list import expand_size_lists
from assistant.understanding.size_range import _size_range
from assistant.understanding.sized_cards import _several_of_size, _sized_cards
from assistant.understanding.sli import _sli
from assistant.understanding.software import _repository, _software, _support_subjects, _support_targets
from assistant.understanding.speed_ratio import _stated_ratio
from assistant.understanding.spoken_units import written_gb
from assistant.understanding.stated_need import _need_against_card, _stated_need
from assistant.understanding.switch_to import _switch_to
from assistant.understanding.symptoms import _measured, _symptoms
from assistant.understanding.text import _MAX_CHARS, _clean, _names_masked, _State, _Text, weights_file_folders
from assistant.understanding.unique_size import _unique_size
from assistant.understanding.upgrade_pick import _upgrade_pick
from assistant.understanding.upgrade_symptom import _upgrade_for_symptom, _upgrade_when_owned_falls_short
from assistant.understanding.usage import _per_minute_price, _usage
from assistant.understanding.visible_gpus import visible_gpus
from assistant.understanding.vision_train import _vision_training
from assistant.understanding.workload import (
    _bare_k_context,
    _batch,
    _context,
    _kv_dtype,
    _params,
    _precision,
    _preferences,
    _training_options,
    _workload_words,
)

__all__ = [
    "Claim",
    "Intent",
    "Mode",
    "ParsedQuery",
    "lexicon_pattern",
    "lexicon_raw",
    "looks_like_injection",
    "parse",
    "persona_in",
]


def parse(text: Any) -> ParsedQuery:
    """Parse one user message into slots; never raises."""
    try:
        return _parse(text)
    except Exception:  # a parser bug must not end a chat turn: the planner then asks the user
        try:
            clean = _clean(text)
            return ParsedQuery(text=clean, language=detect_language(clean), unparsed=True)
        except Exception:
            return ParsedQuery(text="", language="en", unparsed=True)


def looks_like_injection(text: str) -> bool:
    """Whether text (a message or a retrieved passage) tries to give the assistant instructions."""
    norm = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", str(text)[: 4 * _MAX_CHARS]))
    return bool(_lex().rx["injection"].search(norm))


# "deepseek蒸馏版的qwen-32B", "deepseek-r1蒸馏的llama 70b": a distill named between its teacher and its base, glued
# in Chinese, reads as the English name ("deepseek distill qwen-32B")
_GLUED_DISTILL = re.compile(r"(?<=[A-Za-z0-9])\s*蒸馏版?的?\s*(?=[A-Za-z])")
# "Qwen 3.5. 122B": a version number, a stray period, then the size: one name ("Qwen 3.5 122B")
# "ds v3", "DS-R1 671B", "dsr1": DeepSeek's models by the short name Chinese threads use
_DEEPSEEK_SHORT = re.compile(r"(?<![A-Za-z0-9])ds[\s-]?(?=(?:v[23](?:\.\d)?|r1)(?![0-9a-z]))", re.I)
_VERSION_PERIOD_SIZE = re.compile(r"(?<![\d.])(\d\.\d)\.\s+(?=\d+(?:\.\d+)?\s*b\b)", re.I)
# "Mac mini M4 16+256B", "16+512G": a machine's memory + its SSD; the memory is the first number
_MEMORY_PLUS_DISK = re.compile(
    r"(?<![\d.+])(8|16|18|24|32|36|48|64|96|128)\s*\+\s*(?:128|256|512|1024|2048)\s*(?:gb|g|b)?(?![\w.])", re.I
)
_COMMENTED_ARG = re.compile(r"(?<![\w&])#\s?[A-Za-z_][\w.]*\s*=\s*[^,)\s]*,?")


def _parse(text: Any) -> ParsedQuery:
    """The parse proper: raises on a bug (the tests call it directly so no bug hides behind `parse`)."""
    original = _clean(text)
    norm = unicodedata.normalize("NFKC", original[: 4 * _MAX_CHARS])
    norm = re.sub(r"[\u200b-\u200f\u2060\ufeff]", "", norm)
    norm = _GLUED_DISTILL.sub(" distill ", norm)
    norm = _DEEPSEEK_SHORT.sub("deepseek-", norm)
    norm = _VERSION_PERIOD_SIZE.sub(r"\1 ", norm)
    # and "llama7/13/70b": one model per size; "24 gigs", "a 12 gig card": "24GB", "12GB"
    norm = written_gb(expand_size_lists(_MEMORY_PLUS_DISK.sub(r"\1GB", norm)))
    # one space (or newline) per whitespace run: patterns stay linear on "4090" + 2,000 spaces
    norm = re.sub(r"\s+", lambda m: "\n" if "\n" in m.group(0) else " ", norm)[:_MAX_CHARS]
    # a commented-out argument in pasted code ("#load_in_4bit=True,") is not a setting the user runs with
    norm = _COMMENTED_ARG.sub(lambda m: " " * len(m.group(0)), norm)
    st = _State(t=_Text(norm), q=ParsedQuery(text=original, language=detect_language(norm)))
    st.q.injection = bool(_lex().rx["injection"].search(norm))
    for start, end in weights_file_folders(norm):
        st.t.take(start, end)
    # Spans first, most specific first; each step masks what it used (a few only read).
    for step in (
        _run_log,  # a pasted log's speeds, layers and OOM message: no dataset, context or size reads them
        _software,  # engine names first: "llama.cpp" is no model, "vLLM" no GPU
        _precedent,  # "since it was able to run Llama2 70B on a 24 GB GPU, ...": someone else's result, not the ask
        _kv_dtype,
        _bits_per_weight,  # "4.65bpw", "3.5 bits per weight": before "4 bit" in "3.4 bit" reads as int4
        _precision,
        _dataset,  # "1 million samples", "10万条", "500M tokens": not money, sizes, a context or part of a name
        _size_range,  # "qwen2.5 7B到14B", "7-14B models": the top of the range is the model sized
        _models,
        _repository,  # after its model series is read, the thread's repository names no GPU
        _gpus,
        _server_nodes,  # "4台 A800 机器", "96 DGX-A100 (8X40G)": servers of an 8-GPU baseboard, 8 cards each
        _laptop_card,  # "RTX 3060 laptop 6GB": a card of the laptop's memory, not the desktop row
        _stated_card_memory,  # "5090D v2 24G": a memory no row of that card has, the one the user's card has
        _notebook_tier,  # "Colab Pro 可以满足吗": the tier's GPU, and the tier named in the answer
        _accelerator,  # "MTT S80", "昇腾910A": its stack said first, sized as a card of its memory
        _measured,  # "4.5 tok/s", "用了 27G" before RAM sizes and counts read the numbers
        _stated_ratio,  # "V100 比 A100 慢5倍", "A100 要10小时、3090 不到1小时": one card slower by a factor
        _usage,  # "每月 1 亿 tokens", "10k requests a day": a service's volume, not a training dataset
        _machine,
        _support_targets,
        _quoted_numbers,
        _electricity,
        _per_minute_price,  # "$0.0525/minute" before a per-hour price or a budget reads the amount
        _per_hour_price,
        _hours,
        _horizon,
        _context,
        _batch,
        _sharers,  # "10人合伙", "three of us split a server": each may ask at once
        _params,
        _family_with_size,
        _fine_tune,  # "Dolly v2", "Zephyr", "WizardLM 13B": a fine-tune is its base model's shape
        _unique_size,  # "405B": the one model of that size (Llama-3.1-405B)
        _stated_capacity,
        _sized_cards,  # "8*24G", "单卡只有16GB显存", "with 8gb Vram": cards named by their memory alone
        _min_vram,
        _stated_need,  # "the README says it needs 40GB of VRAM": the floor the user's card is set against
        _catalog_vram,
        _mac_memory_no_floor,  # "M2 Max w/ up to 96GB unified memory": the Mac's memory, no floor for a listing
        _money,
        _general_count_of_board,  # "我有块 M60，怎么把两个GPU都用上": the board's own GPUs, not two boards
        _bare_k_context,
    ):
        step(st)
    st.names_masked = _names_masked(st)
    # Then words over the whole message.
    _workload_words(st)
    _card_counts(st)  # "单卡、双卡、四卡 4090": each count asked side by side
    _memory_pair(st)  # "4060 Ti 8G 和 16G", "V100 16G/32G": both versions of the card are asked about
    _version_in_use(st)  # "4060TI占用14.3G显存": more than its 8 GB version holds, so the 16 GB one
    _asked_count(st)  # "runs on 4x4090 ... would 3 4090s be enough?": the count asked about
    _several_of_size(st)  # "单卡只有16GB显存，可以调用多张显卡吗": how many cards of that size
    _engine(st)
    _training_options(st)
    _preferences(st)
    _ruled_out(st)  # "A100国内很难买到": the card ruled out, kept to name; its market words ask nothing
    _stated_psu(st)  # "NZXT C1200 Gold", "500w电源": the unit a build plan is set against
    _pcie(st)  # "是否依赖pcie带宽", "a 2-lane slot", "2x8 + 4": whether the link matters is asked
    _topics(st)
    _concepts(st)
    _cues(st)
    _free_compute(st)  # "有没有免费的GPU", "can't afford cloud": free tiers first
    _symptoms(st)
    visible_gpus(st)  # "只能在一张卡上运行": that one card is the symptom; the count is the cards visible
    _size_ceiling(st)  # "7B 是否是最优解": a size named as the card's supposed ceiling is no model to size
    st.q.is_followup = _is_followup(st)
    _requirements(st)  # before the intents: a stated requirement alone is a catalog question
    if st.q.require_fp8 is False and st.q.precision == "fp8":
        # "不用 FP8，用 BF16": the precision not to use is no precision; the next one named is
        st.q.precision = next((p for p in st.precision_order if p != "fp8"), None)
    _unquantized(st)  # "非量化版本": the published format, once the model is known
    _support_subjects(st)
    _mac_studio_config(st)  # "Mac Studio 能跑满血 R1 吗": the configuration that holds the model
    _mac_without_chip(st)  # "a 16GB MacBook Pro": the memory decides what it holds, whatever the chip
    _focus(st)  # what a comparison weighs: prompt processing, training, serving
    _intents(st)
    _job_cards(st)  # "微调8卡a800够吗，推理8卡4090够吗": each job on its own cards, no comparison
    for after_intents in (
        _psu_question,  # "is my 1000W PSU enough for two 3090s?": the build plan answers
        _accelerator_intents,  # "MTT S80 能跑大模型吗": the biggest model its memory holds
        _card_memory_intents,  # "can used for 5090d v2 24G ?": what the memory the user gives holds
        _accel_slower,  # "910B 比 A100 慢 2-3 倍": the stack, not the chip, leads; nothing to size without a model
        _need_against_card,  # "requirement: 20GB, will my 3080 work?": the card against the need, not its specs
        _adds_card,  # "I have a 3090; add a 5060 Ti or a 5090?": the others join the owned card
        _upgrade_pick,  # "I have a 3070 8GB, suggest a GPU for the best price/performance": the step up leads
        _upgrade_for_symptom,  # "on a 3050, 70B is painfully slow: would buying a 4090 help?": the 4090 for the job
        _upgrade_when_owned_falls_short,  # "my 3060 can't handle 32b, would a 3090?": the 3090 for the job
        _sli,  # "1080ti sli": SLI pools no memory for compute, said once
        _vision_training,  # "训练 DeepLab，3090 够吗": a vision network's card, not the LLMs the card tunes
        _app_asked,  # "IndexTTS：12g显存够吗", "16GB ok for Gaussian Splatting?": the application's memory need
        _replaced_card,  # "之前的v100不适用，想换卡：3080 还是 5060ti": the card replaced, named once
        _switch_to,  # "I have a P4 and would like to change it to a V100": the new card, no comparison
        _driver_mod,  # "the 3060M 12GB with FrankenDriver": the driver is no NVIDIA's, said beside the answer
        _pcie_capacity,  # "dual 4090 rig: x16 + x4 or x8/x8?": what the cards hold together, after the link
        _closed_product_asked,  # "run GPT-4 on my 3060": a hosted service, what the card runs instead
        _scaling,  # "双卡吞吐达不到单卡两倍", "TP=8 only 1.5x": replicas against a wider tensor-parallel group
        _fine_tune_made,  # "[codealpaca] How long did it take?": a named fine-tune's own training time
        _rate_per_minute,  # "每分钟可以生成多少token": the speed answer gives tokens/min beside tokens/s
        _lost_work,  # "my Colab session died and I lost training": resume from a checkpoint kept where it survives
        _notebook_rent,  # "options similar to Google Colab, but 4-8 GPUs": the tier is no card to assess
        _rent_together,  # "租一台服务器同时跑 7B 和 14B": the rental holds both models
        ram_only_run,  # "a 70B with 16GB RAM", "16G内存能跑 32b 吗": that RAM's verdict leads
        layers_to_ram,  # "any way to move layers to system RAM on my 3060?": the split and what it then runs
        quantized_target,  # "./quantize ggml-model-f16.bin ... q4_0": the quantized file is the one run
    ):
        after_intents(st)
    _requirements(st)  # again: in a listing question ("哪些卡有 MIG") a bare feature is wanted
    _drop_feature_precision(st)
    _precisions_mentioned(st)
    st.q.unparsed = not st.q.intents and not st.q.has_slots()
    return st.q
