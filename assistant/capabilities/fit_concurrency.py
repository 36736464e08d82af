"""How many conversations one setup serves at once: the lead of "How many users can one A100 serve with X?".

The number whose KV cache fits beside the weights leads, with what makes them run together (a batching server,
not a one-request script). One conversation is said as one, with what a second user would take: it is the
answer "only one at a time", not "yes".
"""

from __future__ import annotations

from assistant.capabilities.base import Turn
from assistant.strings import Writer
from tools.fit import FitResult
from tools.precision import resolve_precision
from tools.vram import VramResult


def concurrency_fit(turn: Turn) -> FitResult | None:
    """The fit result the concurrency lead is written from, when the question asks how many at once."""
    if not turn.parsed.asks_concurrency:
        return None
    r = next((f for f in turn.own("fit", FitResult) if f.best_precision and f.max_concurrent_sequences), None)
    return r if r is not None and r.memory_at_answer is not None else None


def concurrency_lead(w: Writer, turn: Turn) -> None:
    r = concurrency_fit(turn)
    if r is None or r.memory_at_answer is None or r.best_precision is None:
        return
    one = r.max_concurrent_sequences == 1
    grows = "memory_per_user" in turn.parsed.diagnose_flags  # "并发越高显存越多吗": yes, and by how much
    if grows:
        _grows(w, r.model, r.memory_at_answer)
    w.say(
        "fit_concurrency_one" if one else "fit_concurrency_count" if grows else "fit_concurrency_lead",
        max_seq=r.max_concurrent_sequences,
        model=r.model,
        precision=w.label("format", r.best_precision) if grows else r.best_precision,
        n=r.num_gpus,
        gpu=r.gpu,
        context=r.memory_at_answer.context_tokens,
        usable=r.usable_gib_per_gpu,
    )
    users = turn.parsed.batch
    if users and not one and r.max_concurrent_sequences and users > r.max_concurrent_sequences:
        copies = -(-users // r.max_concurrent_sequences)  # "100 concurrent: how many GPUs?": the part after the number
        w.say(
            "fit_concurrency_replicas",
            users=users,
            copies=copies,
            total=copies * r.num_gpus,
            gpu=r.gpu,
            max_seq=r.max_concurrent_sequences,
        )
    if resolve_precision(r.best_precision).bits > 4.5:
        w.say("fit_concurrency_levers")  # 8- or 16-bit weights: quantizing frees room for more
    elif one:
        w.say("fit_concurrency_levers_one")  # already 4-bit: only more memory or shorter conversations


def _grows(w: Writer, model: str, m: VramResult) -> None:
    """Memory asked to grow with concurrency: it does, by the KV cache each sequence keeps (per token, per sequence)."""
    per_token = m.kv_cache_bytes_per_token
    kv = f"{per_token / 2**20:.1f} MiB" if per_token >= 2**20 else f"{per_token / 2**10:,.0f} KiB"
    seq = per_token * m.context_tokens / 2**30
    w.say("fit_concurrency_grows", model=model, kv=kv, seq=seq, context=m.context_tokens)
