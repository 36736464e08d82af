"""Measure real GPU memory of random-init Llama models, to calibrate GPU Advisor's estimator.

One-shot calibration for a machine with a CUDA GPU. Models are built from ``LlamaConfig`` presets with
``LlamaForCausalLM`` directly on the device (random weights: nothing is downloaded, HF_HUB_OFFLINE=1), then:

* weights: bytes of the parameter and buffer tensors (and what the allocator holds after the build);
* inference (bf16, sdpa, no mask so sdpa runs causal kernels): prefill of ``ctx - decode`` tokens with
  ``use_cache=True`` (a transformers DynamicCache), logits for the last position only (as ``generate``
  does), then ``--decode`` greedy decode steps, so the cache ends at ``ctx`` tokens; batch 1 and ``--batch``;
* training: two optimizer steps on random tokens (labels = inputs, HF causal-LM loss), peak over both
  (step 2 is the steady state: Adam states live through its backward), with and without gradient
  checkpointing (non-reentrant), in these regimes (``--regimes``):

  - ``no_master`` -> request ``optimizer: adamw_no_master``: bf16 params, bf16 grads, AdamW with fp32
    exp_avg/exp_avg_sq (``AdamWFp32States`` below, updated in place in 16M-element chunks); no fp32 copy.
  - ``master`` -> ``optimizer: adamw``: fp32 params (the master copy) and fp32 grads, forward under
    ``torch.autocast(bf16)`` (its weight-cast cache holds a bf16 copy during the forward),
    ``torch.optim.AdamW`` (fused on CUDA) with fp32 states.
  - ``torch_bf16`` (opt-in) -> ``optimizer: adamw_bf16``: bf16 params with plain
    ``torch.optim.AdamW``, whose states are then bf16 too (8 B/param in all).
  - LoRA (always, unless ``--skip-training``): frozen bf16 base, peft ``LoraConfig(r=16, alpha=32,
    target_modules="all-linear")`` (q,k,v,o,gate,up,down; not lm_head), adapters in peft's default dtype,
    ``torch.optim.AdamW`` on the adapters -> ``mode: lora, optimizer: adamw``.

``total_gib`` entries publish peak ``torch.cuda.max_memory_allocated`` (``--published allocated``, the
default), peak ``max_memory_reserved`` (``reserved``) or the device-level peak (``device``: peak reserved plus
the memory outside the caching allocator, i.e. CUDA context, cuBLAS/kernels, from ``torch.cuda.mem_get_info``;
that assumes no other process uses the GPU); all three are written in each entry's ``conditions``. Unless
the basis is ``device``, those requests carry ``overhead_gib: 0``, since the estimator's overhead term is
the CUDA context that allocator figures leave out. Requests name the model by ``arch`` alone (the
estimator takes exactly one of arch / params_b / model); the parameter count is in the title.
``breakdown_gib.weights`` / ``breakdown_gib.kv_cache`` entries publish the exact bytes of those tensors.

Run on a GPU box (repo root, a CUDA build of torch, ``pip install -e '.[calibrate]'``), on an idle GPU::

    python evals/calibrate_gpu.py --sizes 1b,3b,8b --out evals/calibration-$(date +%F).yaml
    python evals/calibrate_gpu.py --sizes 1b --contexts 1024,4096 --batch 4 --skip-training  # quick

Cases that run out of memory are printed and listed as comments at the top of ``--out``. To merge:
review the file, keep only ``type: measured`` entries (``type: smoke`` comes from ``--device cpu`` and is
never a reference), append them to the list in ``evals/references.yaml`` at its indentation (e.g.
``sed -n '/^- /,$p' FILE | sed 's/^/  /' >> evals/references.yaml`` when that list ends the file),
check that ids are unique, then run the eval tests. ``--device cpu`` (tests only) records tensor byte
counts instead of CUDA peaks: weights + KV cache + logits, or params + grads + optimizer states + tensors
saved for backward.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import inspect
import os
import sys
import warnings
import weakref
from contextlib import contextmanager, nullcontext
from functools import partial

os.environ["HF_HUB_OFFLINE"] = "1"  # before transformers/huggingface_hub are imported
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import torch
import yaml

GIB = 2**30
OOM_ERRORS = (torch.cuda.OutOfMemoryError, getattr(torch, "OutOfMemoryError", torch.cuda.OutOfMemoryError))
# name: (layers, hidden, heads, kv_heads, head_dim, intermediate, vocab, tied, title)
PRESETS = {
    "tiny": (2, 256, 4, 2, 64, 512, 2048, False, "tiny Llama (2 layers, hidden 256)"),
    "1b": (16, 2048, 32, 8, 64, 8192, 128256, True, "Llama-3.2-1B-like"),
    "3b": (28, 3072, 24, 8, 128, 8192, 128256, True, "Llama-3.2-3B-like"),
    "8b": (32, 4096, 32, 8, 128, 14336, 128256, False, "Llama-3.1-8B-like"),
}
BF16, FP32 = torch.bfloat16, torch.float32
REGIMES = {  # name: (request mode, request optimizer, param dtype, autocast, optimizer class, what was run)
    "no_master": (
        "full",
        "adamw_no_master",
        BF16,
        False,
        "fp32-states",
        "full fine-tune: bf16 params and grads, AdamW with fp32 exp_avg/exp_avg_sq "
        "(AdamWFp32States), no fp32 master copy",
    ),
    "master": (
        "full",
        "adamw",
        FP32,
        True,
        "torch",
        "full fine-tune: fp32 params (master) and fp32 grads, forward under torch.autocast(bf16), "
        "torch.optim.AdamW with fp32 states",
    ),
    "torch_bf16": (
        "full",
        "adamw_bf16",
        BF16,
        False,
        "torch",
        "full fine-tune: bf16 params and grads, torch.optim.AdamW whose states are then bf16 (not an estimator regime)",
    ),
    "lora": (
        "lora",
        "adamw",
        BF16,
        False,
        "torch",
        "LoRA: frozen bf16 base, peft LoraConfig(r=16, alpha=32, target_modules='all-linear') "
        "(q,k,v,o,gate,up,down; not lm_head), torch.optim.AdamW on the adapters",
    ),
}


class Flow(dict):
    """A mapping written in YAML flow style, like the ``request: {...}`` lines of evals/references.yaml."""


class Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data):  # write shared request/arch dicts out in full, never as &id001 anchors
        return True


Dumper.add_representer(Flow, lambda d, m: d.represent_mapping("tag:yaml.org,2002:map", m, flow_style=True))


def arch_of(size: str) -> dict:
    layers, hidden, heads, kv, hd, inter, vocab, tied, _ = PRESETS[size]
    return {
        "num_layers": layers,
        "hidden_size": hidden,
        "num_attention_heads": heads,
        "num_key_value_heads": kv,
        "head_dim": hd,
        "intermediate_size": inter,
        "vocab_size": vocab,
        "tie_word_embeddings": tied,
        "mlp": "gated",
    }


def build_model(size: str, device: str, dtype: torch.dtype):
    """Random-init LlamaForCausalLM allocated directly on ``device`` in ``dtype`` (no hub access)."""
    from transformers import LlamaConfig, LlamaForCausalLM

    layers, hidden, heads, kv, hd, inter, vocab, tied, _ = PRESETS[size]
    cfg = LlamaConfig(
        num_hidden_layers=layers,
        hidden_size=hidden,
        num_attention_heads=heads,
        num_key_value_heads=kv,
        head_dim=hd,
        intermediate_size=inter,
        vocab_size=vocab,
        tie_word_embeddings=tied,
        max_position_embeddings=131072,
        attn_implementation="sdpa",
    )
    cfg._attn_implementation = "sdpa"
    old = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        with torch.device(device):
            model = LlamaForCausalLM(cfg)
    finally:
        torch.set_default_dtype(old)
    return model.to(dtype)


def storage_bytes(tensors, exclude=()) -> int:
    """Bytes of the distinct storages behind ``tensors`` (views counted once), minus ``exclude`` storages."""
    seen = {t.untyped_storage().data_ptr() for t in exclude}
    total = 0
    for t in tensors:
        ptr = t.untyped_storage().data_ptr()
        if ptr not in seen:
            seen.add(ptr)
            total += t.untyped_storage().nbytes()
    return total


def find_tensors(obj, depth: int = 0):
    """All tensors reachable from a cache object (DynamicCache layers, key_cache lists or legacy tuples)."""
    if isinstance(obj, torch.Tensor):
        yield obj
    elif depth < 4 and isinstance(obj, list | tuple):
        for x in obj:
            yield from find_tensors(x, depth + 1)
    elif depth < 4 and hasattr(obj, "__dict__") and not isinstance(obj, type):
        for x in vars(obj).values():
            yield from find_tensors(x, depth + 1)


class AdamWFp32States(torch.optim.Optimizer):
    """AdamW for bf16 params keeping fp32 exp_avg/exp_avg_sq (the estimator's ``adamw_no_master``).

    The update runs in place over 16M-element chunks, so its temporaries stay small as in a fused kernel.
    """

    def __init__(self, params, lr=1e-5, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, chunk=1 << 24):
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay})
        self.chunk = chunk

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            (b1, b2), lr, eps, wd = group["betas"], group["lr"], group["eps"], group["weight_decay"]
            for p in (p for p in group["params"] if p.grad is not None):
                st = self.state[p]
                if not st:
                    st.update(
                        step=0, m=torch.zeros_like(p, dtype=torch.float32), v=torch.zeros_like(p, dtype=torch.float32)
                    )
                st["step"] += 1
                c1, c2 = 1 - b1 ** st["step"], 1 - b2 ** st["step"]
                pf, gf, mf, vf = p.view(-1), p.grad.reshape(-1), st["m"].view(-1), st["v"].view(-1)
                for i in range(0, pf.numel(), self.chunk):
                    s = slice(i, i + self.chunk)
                    g = gf[s].float()
                    mf[s].lerp_(g, 1 - b1)
                    vf[s].mul_(b2).addcmul_(g, g, value=1 - b2)
                    upd = (vf[s] / c2).sqrt_().add_(eps).reciprocal_().mul_(mf[s]).div_(c1)
                    pf[s].copy_(pf[s].float().mul_(1 - lr * wd).sub_(upd, alpha=lr))


class Meter:
    """Peak memory of one case: CUDA allocator peaks on GPU, tensor byte counts (given by the case) on CPU."""

    def __init__(self, device: str):
        self.cuda = device == "cuda"

    def clean(self):
        gc.collect()
        if self.cuda:
            torch.cuda.synchronize()
            torch.cuda.empty_cache()

    def start(self):
        self.clean()
        if self.cuda:
            torch.cuda.reset_peak_memory_stats()

    def stop(self, cpu_bytes: int) -> dict:
        if not self.cuda:
            return {"allocated": cpu_bytes, "reserved": None, "device": None}
        torch.cuda.synchronize()
        free, total = torch.cuda.mem_get_info()
        outside = total - free - torch.cuda.memory_reserved()  # CUDA context, cuBLAS, loaded kernels
        peak_res = torch.cuda.max_memory_reserved()
        return {"allocated": torch.cuda.max_memory_allocated(), "reserved": peak_res, "device": peak_res + outside}


def forward_kwargs(model) -> tuple[str, dict]:
    """The cache keyword of this transformers version and logits for the last position only."""
    params = inspect.signature(model.forward).parameters
    cache_kw = "cache" if "cache" in params else "past_key_values"
    for name in ("logits_to_keep", "num_logits_to_keep"):
        if name in params:
            return cache_kw, {name: 1}
    return cache_kw, {}


@torch.inference_mode()
def run_inference(model, ctx: int, batch: int, decode: int, device: str, meter: Meter) -> dict:
    cache_kw, kw = forward_kwargs(model)
    meter.start()
    ids = torch.randint(model.config.vocab_size, (batch, ctx - decode), device=device)
    cache = None
    for _ in range(decode + 1):
        out = model(input_ids=ids, use_cache=True, **{cache_kw: cache}, **kw)
        cache = out.cache if getattr(out, "cache", None) is not None else out.past_key_values
        ids = out.logits[:, -1:].argmax(-1)
    kv = storage_bytes(find_tensors(cache))
    weights = storage_bytes(model.parameters()) + storage_bytes(model.buffers())
    logits = out.logits.numel() * out.logits.element_size()
    return {
        **meter.stop(weights + kv + logits),
        "kv": kv,
        "cache_type": type(cache).__name__,
        "seq": int(cache.get_seq_length()),
    }


def run_training(size: str, regime: str, ckpt: bool, seq: int, mb: int, device: str, meter: Meter) -> dict:
    mode, _, dtype, autocast, opt_kind, _ = REGIMES[regime]
    model = build_model(size, device, dtype)
    model.config.use_cache = False
    if ckpt:
        kw = {"use_reentrant": False}
        if hasattr(model, "activation_checkpointing_enable"):  # transformers >= 5.x name
            model.activation_checkpointing_enable(activation_checkpointing_kwargs=kw)
        else:
            model.gradient_checkpointing_enable(gradient_checkpointing_kwargs=kw)
    if mode == "lora":
        from peft import LoraConfig, get_peft_model

        model = get_peft_model(
            model, LoraConfig(r=16, lora_alpha=32, lora_dropout=0.0, target_modules="all-linear", task_type="CAUSAL_LM")
        )
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    opt = (
        torch.optim.AdamW(params, lr=1e-5, fused=device == "cuda")
        if opt_kind == "torch"
        else AdamWFp32States(params, lr=1e-5)
    )
    ids = torch.randint(model.config.vocab_size, (mb, seq), device=device)
    amp = partial(torch.autocast, device, dtype=torch.bfloat16) if autocast else nullcontext
    saved: list[weakref.ref] = []
    meter.start()
    for step in (1, 2):  # step 2 is the steady state: Adam states exist during its forward/backward
        saved.clear()
        with amp(), saved_tensors_counter(saved):
            loss = model(input_ids=ids, labels=ids).loss
        alive = [t for t in (ref() for ref in saved) if t is not None]
        act = storage_bytes(alive, exclude=list(model.parameters()))
        del alive
        saved.clear()
        loss.backward()
        del loss
        grads = storage_bytes(p.grad for p in params if p.grad is not None)
        opt.step()
        if step == 2:
            states = storage_bytes(t for s in opt.state.values() for t in s.values() if torch.is_tensor(t))
        opt.zero_grad(set_to_none=True)
    weights = storage_bytes(model.parameters())
    return {
        **meter.stop(weights + grads + states + act),
        "act": act,
        "states": states,
        "grads": grads,
        "trainable": sum(p.numel() for p in params),
        "total": sum(p.numel() for p in model.parameters()),
        "opt_class": type(opt).__name__,
        "trainable_dtype": str(params[0].dtype).replace("torch.", ""),
    }


@contextmanager
def saved_tensors_counter(out: list):
    """Collect weak references to the tensors autograd saves for backward (not those inside checkpointed
    layers); weak, so that the count never keeps alive a tensor autograd would have freed."""

    def pack(t):
        out.append(weakref.ref(t))
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        yield


def guarded(meter: Meter, fn):
    """Run one case; on OOM return its error text instead of a result (and free what it held)."""
    try:
        return fn(), None
    except (*OOM_ERRORS, RuntimeError) as e:  # cuBLAS/cuDNN allocation failures are plain RuntimeErrors
        if not isinstance(e, OOM_ERRORS) and not any(k in str(e) for k in ("out of memory", "ALLOC_FAILED")):
            raise
        err = "OOM: " + str(e).splitlines()[0][:100]
    meter.clean()
    return None, err


class Recorder:
    """Collects cases as rows of the printed table and as entries in the references.yaml format."""

    def __init__(self, meter: Meter, basis: str):
        import peft
        import transformers

        self.meter, self.basis, self.records, self.params_b = meter, basis, [], {}
        self.gpu = torch.cuda.get_device_name() if meter.cuda else "CPU (smoke test, tensor byte counts)"
        self.slug = "".join(c for c in self.gpu.split()[-1].lower() if c.isalnum()) if meter.cuda else "cpu"
        self.source = (
            f"evals/calibrate_gpu.py on {self.gpu}, torch {torch.__version__}, transformers "
            f"{transformers.__version__}, peft {peft.__version__}, {dt.date.today().isoformat()}"
        )

    def add(self, size, case, kind, metric, request, res, err, title, what, exact=None):
        """``exact``: publish res[exact], a sum of tensor bytes, instead of the memory peak."""
        rec = {"size": size, "case": case, "kind": kind, "result": res, "error": err, "entry": None}
        self.records.append(rec)
        if res is None:
            return
        if exact == "kv":
            n, how = res["kv"], "published = bytes of the K/V tensors held by the cache"
        elif exact:
            n = res[exact]
            how = f"published = bytes of the parameter and buffer tensors (allocated: {res['allocated']} B)"
        elif self.meter.cuda:
            n = res[self.basis]
            how = (
                f"peak torch.cuda.max_memory_allocated {res['allocated']} B, max_memory_reserved "
                f"{res['reserved']} B, device peak incl. CUDA context and other non-allocator memory "
                f"{res['device']} B; published = {self.basis}"
            )
        else:
            n, how = res["allocated"], "published = tensor byte counts on CPU (smoke test, not a CUDA peak)"
        model = f"{PRESETS[size][-1]} ({self.params_b[size]:.4g}B params, random init)"
        if "overhead_gib" in request:
            how += "; request overhead_gib 0: this figure has no CUDA context in it"
        rec["entry"] = {
            "id": f"calib-{size}-{case}-{self.slug}",
            "title": f"{model}, {title}, {self.gpu}",
            "kind": kind,
            "tool": "estimate_vram",
            "request": Flow(request),
            "metric": metric,
            "published": float(f"{n / GIB:.5g}"),
            "unit": "GiB",
            "type": "measured" if self.meter.cuda else "smoke",
            "source": self.source,
            "quote": f"{metric} measured as {n} bytes ({n / GIB:.5g} GiB)",
            "conditions": f"{what}; {how}",
        }

    def print_table(self):
        def gib(n):
            return "-" if n is None else f"{n / GIB:.4g}"

        print(f"{self.source}\npublished = {self.basis} (GiB)")
        print(f"{'size':<5} {'case':<40} {'alloc':>8} {'reserved':>8} {'device':>8}  note")
        for r in (r for r in self.records if r["kind"] != "kv_cache"):
            res = r["result"] or {}
            note = r["error"] or (f"kv {gib(res['kv'])}" if "kv" in res else "")
            if "trainable" in res:
                note = f"trainable {res['trainable']:,} of {res['total']:,}"
            print(
                f"{r['size']:<5} {r['case']:<40} {gib(res.get('allocated')):>8} "
                f"{gib(res.get('reserved')):>8} {gib(res.get('device')):>8}  {note}"
            )

    def write(self, path: str):
        entries = [r["entry"] for r in self.records if r["entry"]]
        head = [
            f"# Generated by {self.source}",
            "# Review before merging into evals/references.yaml."
            if self.meter.cuda
            else "# type: smoke entries are never references.",
        ]
        failed = [f"# {r['size']} {r['case']}: {r['error']}" for r in self.records if r["error"]]
        head += ["# Not recorded (out of memory):", *failed] if failed else []
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(head) + "\n")
            yaml.dump(entries, f, Dumper=Dumper, sort_keys=False, allow_unicode=True, width=4096)
        print(f"wrote {len(entries)} entries to {path}")


def calibrate_size(rec: Recorder, size: str, args, regimes: list[str]):
    meter, dev = rec.meter, args.device
    model, err = guarded(meter, partial(build_model, size, dev, BF16))
    res = None
    if model is not None:
        model.eval()
        tensors = storage_bytes(model.parameters()) + storage_bytes(model.buffers())
        meter.start()  # nothing but the weights is allocated, so the peak is the weights
        res = {**meter.stop(tensors), "tensors": tensors}
    rec.params_b[size] = sum(p.numel() for p in build_model(size, "meta", BF16).parameters()) / 1e9
    base = {"arch": arch_of(size)}  # the estimator takes exactly one of arch / params_b / model
    # A total_gib read off the allocator leaves out the CUDA context, so the estimator's overhead goes too.
    no_overhead = {} if rec.basis == "device" else {"overhead_gib": 0}
    rec.add(
        size,
        "weights-bf16",
        "weights",
        "breakdown_gib.weights",
        {**base, "mode": "inference", "precision": "bf16"},
        res,
        err,
        "bf16 weights",
        "LlamaForCausalLM built directly on the device in bf16",
        exact="tensors",
    )
    for ctx in [int(c) for c in args.contexts.split(",")] if model is not None else []:
        dec = min(args.decode, ctx - 1)
        for b in sorted({1, args.batch}):
            res, err = guarded(meter, partial(run_inference, model, ctx, b, dec, dev, meter))
            req = {
                **base,
                "mode": "inference",
                "precision": "bf16",
                "kv_dtype": "bf16",
                "context_tokens": ctx,
                "batch": b,
            }
            total_req = {**req, **no_overhead}
            what = (
                f"bf16 weights, attn sdpa, torch.inference_mode; prefill {ctx - dec} tokens x batch {b} "
                f"with use_cache=True, then {dec} greedy decode steps, so the "
                f"{res['cache_type'] if res else 'cache'} ends at {res['seq'] if res else ctx} tokens; "
                "logits for the last position only"
            )
            rec.add(
                size,
                f"infer-ctx{ctx}-b{b}",
                "vram_inference",
                "total_gib",
                total_req,
                res,
                err,
                f"inference {ctx} ctx, batch {b}",
                what,
            )
            if res is not None:
                rec.add(
                    size,
                    f"kv-ctx{ctx}-b{b}",
                    "kv_cache",
                    "breakdown_gib.kv_cache",
                    req,
                    res,
                    None,
                    f"KV cache {ctx} tokens, batch {b}",
                    what,
                    exact="kv",
                )
    del model
    meter.clean()
    for regime in regimes:
        mode, optimizer, *_, desc = REGIMES[regime]
        for ckpt in (False, True):
            res, err = guarded(
                meter, partial(run_training, size, regime, ckpt, args.train_seq, args.train_batch, dev, meter)
            )
            req = {
                **base,
                "mode": mode,
                "precision": "bf16",
                "optimizer": optimizer,
                "grad_checkpointing": ckpt,
                "context_tokens": args.train_seq,
                "batch": args.train_batch,
                **no_overhead,
            }
            if mode == "lora":
                req.update(lora_rank=16, lora_targets="all")
            what = (
                f"{desc}; seq {args.train_seq} x micro-batch {args.train_batch}, gradient checkpointing "
                f"{'on (non-reentrant)' if ckpt else 'off'}, sdpa, HF causal-LM loss (labels = inputs); "
                "peak over 2 optimizer steps"
            )
            if res is not None:
                what += (
                    f"; trainable params {res['trainable']:,} ({res['trainable_dtype']}) of "
                    f"{res['total']:,}; {res['opt_class']} states {res['states']} B, grads "
                    f"{res['grads']} B, tensors saved for backward outside checkpointed layers "
                    f"{res['act']} B"
                )
            name = f"{regime if mode == 'lora' else 'full-' + regime}-{'gc' if ckpt else 'nogc'}"
            rec.add(
                size,
                f"train-{name}-seq{args.train_seq}-mb{args.train_batch}",
                "vram_training",
                "total_gib",
                req,
                res,
                err,
                f"training step {name}, seq {args.train_seq}",
                what,
            )


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--sizes", default="1b,3b,8b", help=f"comma list of {','.join(PRESETS)}")
    ap.add_argument("--device", choices=["cuda", "cpu"], default="cuda", help="cpu: smoke test only")
    ap.add_argument("--contexts", default="1024,4096,16384", help="inference context lengths (tokens)")
    ap.add_argument("--batch", type=int, default=8, help="the larger inference batch (batch 1 always runs)")
    ap.add_argument("--decode", type=int, default=16, help="greedy decode steps after the prefill")
    ap.add_argument("--train-seq", type=int, default=2048)
    ap.add_argument("--train-batch", type=int, default=1, help="training micro-batch")
    ap.add_argument(
        "--regimes",
        default="no_master,master",
        help="full fine-tune regimes (LoRA always runs): no_master, master, torch_bf16",
    )
    ap.add_argument("--skip-training", action="store_true")
    ap.add_argument(
        "--published",
        choices=["allocated", "reserved", "device"],
        default="allocated",
        help="which CUDA peak becomes `published` (all three go into `conditions`)",
    )
    ap.add_argument("--out", help="write the entries as a YAML list in the evals/references.yaml format")
    args = ap.parse_args(argv)
    sizes = args.sizes.split(",")
    regimes = [] if args.skip_training else [r for r in args.regimes.split(",") if r] + ["lora"]
    if unknown := [s for s in sizes if s not in PRESETS] + [r for r in regimes if r not in REGIMES]:
        ap.error(f"unknown size or regime: {', '.join(unknown)}")
    if args.device == "cuda" and not torch.cuda.is_available():
        ap.error("no CUDA device; --device cpu is a smoke test only")
    import transformers

    transformers.logging.set_verbosity_error()
    torch.manual_seed(0)
    meter = Meter(args.device)
    meter.clean()
    rec = Recorder(meter, args.published if meter.cuda else "allocated")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # API deprecation notices from transformers/peft
        for size in sizes:
            calibrate_size(rec, size, args, regimes)
    rec.print_table()
    if args.out:
        rec.write(args.out)
    return rec.records


if __name__ == "__main__":
    main(sys.argv[1:])
