# ruff: noqa: E501 - the rewrites are quoted whole, as a user would type them
"""Round 14, English paraphrases of worked-on wild cases: the same need as a different person writes it (other
words and order, typos, slang such as "24 gigs" or "2 grand", Ollama tags and Hugging Face ids, hardware stated
another way). Each rewrite is scored with its case's own rubric (lead, tools, must-contain, names), and the
readers the rewrites showed missing are tested on variations of their own:

- sizes said rather than written ("a 12 gig card", "64 gigs of DDR5", "32 gigabytes") read as GB
  (understanding/spoken_units.py);
- "64GB of DDR5" is the machine's RAM, not a memory claim about the card beside it (lexicon ram, hardware.py);
- "4bits" / "8 bits" name the precision, also inside a repository id ("Yi-34B-Chat-4bits") (lexicon precisions);
- "the 8gb version of the 3060", "16G版本的4060ti": the memory variant said before the name (hardware.py);
- "12GB VRAM here", "I've got 8GB of VRAM", "我这边12G显存": the user's card named by its size (sized_cards.py);
- one card named with two counts, one working and one asked about: the asked count (understanding/asked_count.py);
- "can I just rent cloud GPUs to run X?": where to rent (lexicon intents.rent_where);
- "on my own PC" is the user's machine, not another side to compare (lexicon pc_alternative);
- "worth getting", "about to pick up", "gonna get": a card still to buy; "my CPU" owns no card (lexicon);
- a Mac or card to buy because the owned card falls short ("my 4090 can't handle them", "我的4090跑不了70B"): the one
  to buy is sized, the owned card named once as left out (understanding/mac_memory.py, upgrade_symptom.py,
  capabilities/ruled_out.py);
- a fine-tune no method fits on the user's cards: the smaller model they do fine-tune (capabilities/cheaper.py);
- "will ollama use both GPUs' VRAM", "split the model across both cards": the cards' memory pooled is asked (lexicon
  asks_per_card), so the answer says how the engine splits it;
- "70B on CPU is painfully slow: would buying a 4090 help?": the card to buy for the job, not a diagnosis of the
  current run (understanding/upgrade_symptom.py); "currently on a 3050" is the user's card;
- "the fans suggest otherwise" asks for no recommendation; "buy an NVLink" buys no card (lexicon);
- the fits-but-OOM diagnosis names the usual culprit (a KV cache sized for a long context or a big batch) in its lead;
- "a grand", "2 grand": $1k, $2k (spoken_units.py); "cheapest aws box": an instance to rent (lexicon);
- "why aren't T4/K80/V100 supported?": cards listed with slashes in a support question are each card's verdict, not a
  choice among them (understanding/risk.py).
"""

import pytest
from asking import ask_checked, assert_rewrite_passes, lead_of, rewrite_params

from assistant.understanding import parse

# (file, case id, the rewrite): the case's rubric scores the rewrite
REWRITES = [
    (
        "en_fit.yaml",
        "wild-en-vicuna-13b-one-3090ti",
        "will a single 3090 Ti (24 gigs) handle vicuna-13b or do i need more?",
    ),
    ("en_fit.yaml", "wild-en-vicuna-13b-one-3090ti", "got one RTX3090Ti 24G, can it run lmsys/vicuna-13b-v1.5?"),
    (
        "en_fit.yaml",
        "wild-en-llama2-70b-single-v100-16gb",
        "is it possible to run llama2:70b on just one v100 16gb? thats the only gpu i have",
    ),
    (
        "en_fit.yaml",
        "wild-en-llama2-70b-single-v100-16gb",
        "Only have a single Tesla V100 (16 GB). Any chance meta-llama/Llama-2-70b-chat-hf runs on it for inference?",
    ),
    (
        "en_fit.yaml",
        "wild-en-gpt-oss-120b-2x5090",
        "can gpt-oss:120b run on a pair of rtx 5090s (32gb each)? your table says no but wanted to double check before I try",
    ),
    (
        "en_fit.yaml",
        "wild-en-gpt-oss-120b-2x5090",
        "two 5090s = 64 gigs of vram. is that enough for openai/gpt-oss-120b or no?",
    ),
    ("en_fit_r4.yaml", "wild-en-r1-14b-q6-on-12gb", "will deepseek-r1:14b at q6_k fit on a 12 gig card?"),
    (
        "en_fit_r4.yaml",
        "wild-en-r1-14b-q6-on-12gb",
        "12GB VRAM here. Can I load a 14B model at Q6 or is that too much?",
    ),
    (
        "en_fit_r4.yaml",
        "wild-en-34b-fp16-on-3x4090",
        "Can I run a 34B model in fp16 (no quant) across three 4090s? 3x24 = 72GB and on 4 cards it only used ~69.5GB",
    ),
    (
        "en_fit_r4.yaml",
        "wild-en-34b-fp16-on-3x4090",
        "running 34b unquantized on 4x4090 works fine, uses about 69.49GB total. would 3 4090s be enough or will some memory spike OOM it?",
    ),
    (
        "en_fit_r5.yaml",
        "wild-en-mixtral-8x7b-minimum-card",
        "whats the smallest nvidia card (vram wise) that can run Mixtral-8x7B-Instruct-v0.1?",
    ),
    (
        "en_fit_r5.yaml",
        "wild-en-mixtral-8x7b-minimum-card",
        "How much VRAM do I need at minimum for mixtral 8x7b? which GPU would that be",
    ),
    (
        "en_purchase.yaml",
        "wild-en-buy-2xa100-llama3-70b-f16-ollama",
        "Planning to buy two A100 80GB cards to run llama3:70b-instruct-fp16 in ollama (~140GB). Will ollama automatically use both GPUs' VRAM or do I need to change the modelfile?",
    ),
    (
        "en_purchase.yaml",
        "wild-en-buy-2xa100-llama3-70b-f16-ollama",
        "gonna get 2x A100 80G for llama 3 70B at f16 via ollama. does it split the 140gb model across both cards on its own?",
    ),
    (
        "en_purchase.yaml",
        "wild-en-about-to-buy-1080ti-dolphin-mixtral",
        "about to pick up a GTX 1080Ti — will ollama see it and run dolphin-mixtral on it faster than cpu? does ollama support all nvidia cards?",
    ),
    (
        "en_purchase.yaml",
        "wild-en-about-to-buy-1080ti-dolphin-mixtral",
        "Does Ollama work with a 1080 Ti? thinking of buying one to run dolphin-mixtral and want to know if it'll actually use the gpu",
    ),
    (
        "en_purchase_r2.yaml",
        "wild-en-koboldcpp-buy-4090-for-70b",
        "Currently on an RTX 3050 with koboldcpp. Would buying a 4090 make token generation on 70B models much faster? 70B on CPU is painfully slow",
    ),
    (
        "en_purchase_r2.yaml",
        "wild-en-koboldcpp-buy-4090-for-70b",
        "is a 4090 worth it to speed up generation for 70b models in koboldcpp? i have a 3050 now, prompt processing got fast but gen is still slow",
    ),
    (
        "en_purchase_r2.yaml",
        "wild-en-mlc-buy-96gb-macbook-65b",
        "since a 4090 can't fit 65B, should I get a MacBook with 96GB unified memory instead? would 65b run on it?",
    ),
    (
        "en_purchase_r2.yaml",
        "wild-en-mlc-buy-96gb-macbook-65b",
        "Thinking of buying a 96 gig MacBook Pro for 65B models since my 4090 can't handle them. will it run?",
    ),
    (
        "en_purchase_r5.yaml",
        "wild-en-r5-deoldify-training-card-1000-usd",
        "Best GPU for training with a budget of $1k max?",
    ),
    (
        "en_purchase_r5.yaml",
        "wild-en-r5-deoldify-training-card-1000-usd",
        "what card should i get for training models if i can spend up to 1000 bucks",
    ),
    (
        "en_compare.yaml",
        "wild-en-h100-vs-a100-one-or-two",
        "A100 vs H100 for LLMs — which one do we need, and is a single card enough or should we get two?",
    ),
    (
        "en_compare.yaml",
        "wild-en-h100-vs-a100-one-or-two",
        "for running large language models, should we go H100 or A100? and 1 or 2 of them?",
    ),
    (
        "en_compare.yaml",
        "wild-en-2x3090-vs-1x4090-finetuning-llamas",
        "Building a rig for axolotl fine-tuning. Better: two 3090s (48GB total) or one 4090 (24GB)? What model sizes can I train on each, and does the 4090's FP8/INT8 support matter?",
    ),
    (
        "en_compare.yaml",
        "wild-en-2x3090-vs-1x4090-finetuning-llamas",
        "dual 3090 vs single 4090 for finetuning with axolotl? what size models could each train? is ada fp8 / int8 actually useful?",
    ),
    (
        "en_compare_r4.yaml",
        "wild-en-titan-rtx-vs-two-2080ti-tacotron2",
        "which is better for training tacotron2: a single Titan RTX or 2x 2080 Ti?",
    ),
    (
        "en_compare_r4.yaml",
        "wild-en-titan-rtx-vs-two-2080ti-tacotron2",
        "Titan RTX vs two RTX 2080Ti's — which would you pick for this?",
    ),
    (
        "en_compare_r6.yaml",
        "wild-en-r6-dual-4090-vs-dual-3090-vs-single-4090",
        "Trying to decide between 2x 4090, 2x 3090 (with NVLink, which I read lets PyTorch see them as one 48GB GPU) or a single 4090 for a home AI box for the next 3-5 years. I want to run and fine-tune Stable Video Diffusion, Tortoise TTS, Falcon 7B and Whisper as fast as possible. How much VRAM does fine-tuning need?",
    ),
    (
        "en_compare_r6.yaml",
        "wild-en-r6-dual-4090-vs-dual-3090-vs-single-4090",
        "dual 4090 vs dual 3090 vs one 4090? 4090s have no nvlink/p2p, 3090s have nvlink so pytorch sees them as 48gb right? want to train/finetune falcon 7b, whisper, svd, tortoise at home. how much vram do i need for finetuning?",
    ),
    (
        "en_compare_r2.yaml",
        "wild-en-4090-vs-4x-4060ti-16gb",
        "one RTX 4090 24GB or four 4060 Ti 16GB (64GB total)? core counts roughly match, but will memory bandwidth on the 4060 Ti stack be a bottleneck?",
    ),
    (
        "en_compare_r2.yaml",
        "wild-en-4090-vs-4x-4060ti-16gb",
        "4x 4060ti 16gb vs a single 4090 — 64 gigs vs 24 gigs of vram. is the 4060ti bandwidth going to kill performance?",
    ),
    ("en_buy_vs_rent_r2.yaml", "wild-en-grok1-rent-cloud-gpu", "can i just rent cloud gpus to run grok-1? which ones"),
    (
        "en_buy_vs_rent_r2.yaml",
        "wild-en-grok1-rent-cloud-gpu",
        "Is renting GPUs from a cloud provider a viable way to run xai-org/grok-1?",
    ),
    (
        "en_buy_vs_rent_r5.yaml",
        "wild-en-gptj-6b-smallest-ec2-instance",
        "what's the cheapest EC2 instance that can run EleutherAI/gpt-j-6b?",
    ),
    (
        "en_buy_vs_rent_r5.yaml",
        "wild-en-gptj-6b-smallest-ec2-instance",
        "smallest aws instance type for gpt-j 6B inference?",
    ),
    (
        "en_buy_vs_rent_r6.yaml",
        "wild-en-r6-dolly-8xa100-train-time-cost",
        "how long does dolly take to train on 8x A100? trying to work out the cost",
    ),
    (
        "en_buy_vs_rent_r6.yaml",
        "wild-en-r6-dolly-8xa100-train-time-cost",
        "Estimating the cost of training databricks dolly on eight A100s — how many hours does it take?",
    ),
    (
        "en_buy_vs_rent_r5.yaml",
        "wild-en-llama-7b-google-colab-free",
        "has anyone got llama 7b running on free google colab? the T4 has 16gb which should be enough. would colab pro help?",
    ),
    (
        "en_buy_vs_rent_r5.yaml",
        "wild-en-llama-7b-google-colab-free",
        "Can I run LLaMA-7B on a free Colab GPU (16 GB)? Is Colab Pro any better?",
    ),
    (
        "en_buy_vs_rent_r6.yaml",
        "wild-en-r6-mindcraft-run-gpt-locally-3050",
        "i keep hitting rate limits with mindcraft and dont want to pay for a tier. can i run gpt or claude locally on my rtx 3050 11gb?",
    ),
    (
        "en_buy_vs_rent_r6.yaml",
        "wild-en-r6-mindcraft-run-gpt-locally-3050",
        "Is there any way to run GPT-4 or Claude on my own PC for free? I have a 3050 (11GB). sick of API rate limits",
    ),
    ("en_fine_tuning.yaml", "wild-en-mpt-7b-finetune-dual-3090", "can i finetune mosaicml/mpt-7b on 2x 3090?"),
    (
        "en_fine_tuning.yaml",
        "wild-en-mpt-7b-finetune-dual-3090",
        "Any way to fine-tune MPT 7B with two RTX 3090 24GB cards?",
    ),
    (
        "en_fine_tuning.yaml",
        "wild-en-rl-7b-4x3090-96gb-enough",
        "Is 4x 3090 (96GB VRAM total) enough for RL training (PPO/GRPO) of a 7B model? whats the min vram?",
    ),
    (
        "en_fine_tuning.yaml",
        "wild-en-rl-7b-4x3090-96gb-enough",
        "How much VRAM do I need for reinforcement learning on a 7B? I've got four RTX 3090s = 96 gigs",
    ),
    (
        "en_fine_tuning.yaml",
        "wild-en-a100-40gb-count-full-13b-new-language",
        "Full fine-tune of llama2 13B for a new language (LoRA won't cut it) — how many A100 40GB cards do I need?",
    ),
    (
        "en_fine_tuning.yaml",
        "wild-en-a100-40gb-count-full-13b-new-language",
        "how many 40gb a100s to do full param training on Llama-2-13b? teaching it a new language so no lora",
    ),
    (
        "en_fine_tuning.yaml",
        "wild-en-airllm-finetune-70b-one-4090",
        "AirLLM runs 70B on 4GB vram — so can I finetune a 70B on one 4090 (24GB) too? will finetuning be supported?",
    ),
    (
        "en_fine_tuning.yaml",
        "wild-en-airllm-finetune-70b-one-4090",
        "if 70b inference works on a 4gb card with layer offloading, could i fine-tune a 70B model on a single RTX 4090 24G?",
    ),
    (
        "en_fine_tuning_r2.yaml",
        "wild-en-qwen7b-lora-dual-4090",
        "I have a box with 2x RTX 4090. Enough for LoRA fine-tuning Qwen-7B?",
    ),
    (
        "en_fine_tuning_r2.yaml",
        "wild-en-qwen7b-lora-dual-4090",
        "planning a lora finetune of Qwen/Qwen-7B — will two 4090s do it?",
    ),
    (
        "en_risk.yaml",
        "wild-en-m40-or-m60-faster-than-cpu",
        "thinking about buying a tesla M40 or M60 for ollama — is it actually much faster than running on CPU?",
    ),
    (
        "en_risk.yaml",
        "wild-en-m40-or-m60-faster-than-cpu",
        "Is an M40 / M60 worth getting for Ollama vs just using my CPU?",
    ),
    (
        "en_risk.yaml",
        "wild-en-m10-supported-before-buying-cheap",
        "Is the Tesla M10 supported? Docs only list M60 and M40. They're super cheap so I'm thinking of grabbing a few",
    ),
    (
        "en_risk.yaml",
        "wild-en-m10-supported-before-buying-cheap",
        "can i use nvidia M10 cards? found several dirt cheap, want to check support before buying",
    ),
    ("en_risk_r2.yaml", "wild-en-intel-arc-a770-ggml", "can I run GGML/GGUF models on an Intel Arc A770?"),
    (
        "en_risk_r2.yaml",
        "wild-en-intel-arc-a770-ggml",
        "any way to use my intel arc a770 16gb for llama.cpp ggml models?",
    ),
    ("en_risk_r4.yaml", "wild-en-two-k80-48gb", "why aren't T4/K80/V100 supported? with two K80s I'd have 48GB"),
    (
        "en_risk_r4.yaml",
        "wild-en-two-k80-48gb",
        "Two Tesla K80s = 48 gigs of vram right? why aren't older Tesla cards like K80, T4, V100 supported?",
    ),
    (
        "en_troubleshooting.yaml",
        "wild-en-2x3090-64gb-llama31-70b-q4-slow",
        "running llama3.1:70b q4 on 2x 3090 with 64gb ram and it's super slow. normal?",
    ),
    (
        "en_troubleshooting.yaml",
        "wild-en-2x3090-64gb-llama31-70b-q4-slow",
        "Two RTX 3090s + 64 GB RAM, Llama-3.1-70B-Instruct at Q4 is crawling. Is this expected?",
    ),
    (
        "en_troubleshooting.yaml",
        "wild-en-llama-7b-oom-3090ti-24gb",
        "Getting CUDA OOM running example.py with llama 7B on a 3090 Ti (24GB). someone said 7B only needs 8.5GB, so why?",
    ),
    (
        "en_troubleshooting.yaml",
        "wild-en-llama-7b-oom-3090ti-24gb",
        "llama-7b OOMs on my 24 gig RTX 3090Ti?? thought it only needed ~8.5G vram",
    ),
    (
        "en_troubleshooting.yaml",
        "wild-en-rtx3070-int8-still-oom",
        "anyone get this running on a 3070? int8 still gives me cuda OOM. do i need int4?",
    ),
    (
        "en_troubleshooting.yaml",
        "wild-en-rtx3070-int8-still-oom",
        "Single RTX 3070 here, OOM even in 8-bit. Would 4-bit work?",
    ),
    (
        "en_troubleshooting_r4.yaml",
        "wild-en-4090-yi-34b-chat-4bit-vllm-oom",
        "CUDA OOM loading Yi-34B-Chat-4bits in vLLM on a 4090 24G. any ideas?",
    ),
    (
        "en_troubleshooting_r4.yaml",
        "wild-en-4090-yi-34b-chat-4bit-vllm-oom",
        "vllm keeps OOMing with 01-ai/Yi-34B-Chat-4bits on my RTX 4090 (24 gigs)",
    ),
    (
        "en_troubleshooting_r6.yaml",
        "wild-en-r6-4x4090-ollama-uses-one-gpu",
        "ollama only uses 1 of my 4 RTX 4090s even though I set the env vars in the systemd service. how do I get it to use all of them?",
    ),
    (
        "en_troubleshooting_r6.yaml",
        "wild-en-r6-4x4090-ollama-uses-one-gpu",
        "4x 4090 box, ollama just loads onto gpu0 and ignores the rest. is this a bug?",
    ),
    (
        "en_multipart_r5.yaml",
        "wild-en-llama31-70b-4090-64g-ddr5-speed",
        "4090 + 64GB DDR5 — can it run llama3.1:70b, and how many tokens/s would I get?",
    ),
    (
        "en_multipart_r5.yaml",
        "wild-en-llama31-70b-4090-64g-ddr5-speed",
        "Will Llama 3.1 70B work on a single RTX 4090 with 64 gigs of DDR5? what t/s should I expect",
    ),
    ("en_multipart_r4.yaml", "wild-en-13b-on-8gb-rtx3060", "will a 13b model run on the 8gb version of the 3060?"),
    ("en_multipart_r4.yaml", "wild-en-13b-on-8gb-rtx3060", "RTX 3060 8GB — enough for 13B models?"),
    (
        "en_multipart_r5.yaml",
        "wild-en-llama2-13b-and-70b-finetune-gpu-count",
        "How many GPUs do I need to fine-tune Llama-2-13b and Llama-2-70b? minimum requirements",
    ),
    (
        "en_multipart_r5.yaml",
        "wild-en-llama2-13b-and-70b-finetune-gpu-count",
        "min gpu count for finetuning llama2 13b and llama2 70b?",
    ),
    (
        "en_multipart_r6.yaml",
        "wild-en-r6-65b-int4-2x4090-64gb-ram",
        "Can I load a 65B model in int4 split across two 4090s if I only have 64GB system RAM? I heard you need 128GB RAM",
    ),
    (
        "en_multipart_r6.yaml",
        "wild-en-r6-65b-int4-2x4090-64gb-ram",
        "2x RTX 4090 but just 64 gigs of ram — will 65b 4-bit load across both cards or do I need 128GB?",
    ),
    # a second sample, written after the first fixes and measured once (7 of 10 passed; 9 after)
    ("en_fit.yaml", "wild-en-8gb-smallest-llama", "i've only got 8 gigs of vram, can i run even the smallest llama?"),
    ("en_fit.yaml", "wild-en-8gb-smallest-llama", "Will the tiniest Llama model run on an 8GB card?"),
    ("en_fit.yaml", "wild-en-llama-7b-3080-16gb", "does it run on a 16 gig 3080?"),
    ("en_fit.yaml", "wild-en-llama-7b-3080-16gb", "3080 w/ 16GB VRAM - will this model run on it?"),
    (
        "en_purchase_r5.yaml",
        "wild-en-r5-deoldify-training-card-1000-usd",
        "got about a grand to spend on a GPU for training, what should I get?",
    ),
    (
        "en_purchase_r5.yaml",
        "wild-en-r5-deoldify-training-card-1000-usd",
        "budget ~1k USD, best card for training models?",
    ),
    (
        "en_fine_tuning.yaml",
        "wild-en-mpt-7b-finetune-dual-3090",
        "2x RTX 3090 24GB here - possible to fine-tune mpt-7b?",
    ),
    (
        "en_troubleshooting.yaml",
        "wild-en-2x3090-64gb-llama31-70b-q4-slow",
        "llama3.1:70b-instruct-q4_K_M is crawling on my dual 3090 rig (64 gigs ram), is that normal??",
    ),
    ("en_fit.yaml", "wild-en-vicuna-13b-one-3090ti", "can vicuna 13b run on just 1x 3090ti 24gb"),
    ("en_buy_vs_rent_r5.yaml", "wild-en-gptj-6b-smallest-ec2-instance", "cheapest aws box that'll run gpt-j-6b?"),
]

# rewrites still failing their case's rubric (kinds that need a capability: see the round-14 report)
LEFT = {
    "3080 w/ 16GB VRAM - will this model run on it?": (
        "a memory said after 'with' that no catalog row has is a claim to correct (test_round13b_card_names: "
        "'my 3090 with 48GB'); a 16 GB 3080 laptop part is not in the data to tell the two apart"
    ),
    "Does Ollama work with a 1080 Ti? thinking of buying one to run dolphin-mixtral and want to know if it'll actually use the gpu": (
        "a buyer's support question: the card's fit verdict leads (risk.py _leads), not the engine's yes"
    ),
    "is a 4090 worth it to speed up generation for 70b models in koboldcpp? i have a 3050 now, prompt processing got fast but gen is still slow": (
        "'worth it' with an owned card is a comparison by design (intents.py _owned_switch), on the prefill focus"
    ),
}


@pytest.mark.parametrize(("file", "case_id", "text"), rewrite_params(REWRITES, LEFT))
def test_a_rewrite_passes_its_cases_rubric(advisor, file, case_id, text) -> None:
    assert_rewrite_passes(advisor, file, case_id, text)


# ---- the readers, on variations of their own --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "slot", "value"),
    [
        ("will deepseek-r1:14b at q6_k fit on a 12 gig card?", "stated_capacity_gib", 12.0),
        ("I have a 16-gig 4060 Ti and 32 gigabytes of ram, what can I run?", "ram_gib", 32.0),
        ("I have a 16-gig 4060 Ti and 32 gigabytes of ram, what can I run?", "gpu", "rtx-4060-ti-16gb"),
        ("two 5090s = 64 gigs of vram. enough for gpt-oss-120b?", "num_gpus", 2),
        ("Will Llama 3.1 70B work on a single RTX 4090 with 64 gigs of DDR5?", "ram_gib", 64.0),
        ("3090 and 128GB of DDR4-3200, can I run a 70b?", "ram_gib", 128.0),
        ("CUDA OOM loading Yi-34B-Chat-4bits in vLLM on a 4090 24G", "precision", "int4"),
        ("can I run a 13b in 8 bits on a 3060 12gb", "precision", "int8"),
        ("用4bits量化的模型，3090能跑34B吗", "precision", "int4"),
        ("will a 13b model run on the 8gb version of the 3060?", "gpu", "rtx-3060-8gb"),
        ("I have the 16GB variant of the 4060 Ti, can it run qwen2.5 14b", "gpu", "rtx-4060-ti-16gb"),
        ("16G版本的4060ti能跑qwen2.5 14b吗", "gpu", "rtx-4060-ti-16gb"),
        ("12GB VRAM here. Can I load a 14B model at Q6 or is that too much?", "stated_capacity_gib", 12.0),
        ("I've got 8GB of VRAM, can I run llama3 8b", "stated_capacity_gib", 8.0),
        ("16gb vram on my laptop, will mistral 7b run", "stated_capacity_gib", 16.0),
        ("我这边12G显存，能跑14B的Q6吗", "stated_capacity_gib", 12.0),
        ("it needs 24GB VRAM here they say, what card?", "stated_capacity_gib", None),
        ("running 34b unquantized on 4x4090 works fine. would 3 4090s be enough?", "num_gpus", 3),
        ("Llama 70B runs on 8 A100s for us. Can we do it with 4 A100s?", "num_gpus", 4),
        ("我们用8张A100跑70B没问题，4张A100能跑吗？", "num_gpus", 4),
        ("Is an M40 / M60 worth getting for Ollama vs just using my CPU?", "buy_or_rent", "buy"),
        ("Is an M40 / M60 worth getting for Ollama vs just using my CPU?", "owns_hardware", False),
        ("about to pick up a GTX 1080Ti, will ollama see it?", "buy_or_rent", "buy"),
        ("gonna get 2x A100 80G for llama 3 70B at f16 via ollama", "buy_or_rent", "buy"),
    ],
)
def test_a_reader_fills_its_slot(text, slot, value) -> None:
    assert getattr(parse(text), slot) == value, parse(text)


def test_a_memory_said_of_the_machine_is_no_claim_about_the_card() -> None:
    assert not parse("Will Llama 3.1 70B work on a single RTX 4090 with 64GB of DDR5?").claims


@pytest.mark.parametrize(
    "text",
    [
        "can i just rent cloud gpus to run grok-1? which ones",
        "Is renting GPUs from a cloud provider a viable way to run xai-org/grok-1?",
        "could we rent some GPUs to fine-tune llama 3 70b?",
    ],
)
def test_renting_asked_is_where_to_rent(text) -> None:
    assert "rent_where" in parse(text).intents


def test_renting_weighed_against_buying_is_not_where_to_rent() -> None:
    assert "rent_where" not in parse("can I rent GPUs or should I buy a 4090 for llama 70b?").intents


@pytest.mark.parametrize(
    "text",
    [
        "Is there any way to run GPT-4 or Claude on my own PC for free? I have a 3050 (11GB).",
        "can i run llama 3 70b or qwen 72b on my pc with a 3090?",
    ],
)
def test_the_users_own_pc_is_no_side_to_compare(text) -> None:
    assert "compare" not in parse(text).intents


def test_a_pc_beside_a_mac_is_still_the_other_side() -> None:
    assert "compare" in parse("Mac Studio or a PC with a 4090 for llama 70b?").intents


@pytest.mark.parametrize(
    ("text", "mac"),
    [
        ("Thinking of buying a 96 gig MacBook Pro for 65B models since my 4090 can't handle them. will it run?", 96),
        ("My 3090 can't run llama 3 70b. should I buy a 64GB Mac mini instead?", 64),
    ],
)
def test_a_mac_bought_because_the_card_falls_short_is_sized(text, mac) -> None:
    q = parse(text)
    assert q.gpu and q.gpu.startswith("apple-") and q.gpu.endswith(f"-{mac}gb"), q
    assert q.ruled_out_gpu and q.ruled_out_by == "capacity", q


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("my 3060 can't handle qwen2.5 32b. thinking of buying a 3090, will it run it?", "rtx-3090"),
        ("My 4090 can't run llama 3 70b, should I buy an M4 Max 128GB instead? will it run?", "apple-m4-max-128gb"),
        ("我的4090跑不了70B，想买个128G的Mac Studio，能跑吗？", "apple-m4-max-128gb"),
    ],
)
def test_the_card_to_buy_is_sized_when_the_owned_one_falls_short(text, card) -> None:
    q = parse(text)
    assert q.gpu == card and q.intents[0] == "fit" and q.ruled_out_by == "capacity", q


def test_a_mac_weighed_against_an_owned_card_that_runs_is_not_swapped() -> None:
    q = parse("I have a 4090 and want to buy a 64GB MacBook, which is faster for 32b?")
    assert q.gpu == "rtx-4090" and not q.ruled_out_gpu, q


def test_the_falling_short_card_is_named_once(advisor) -> None:
    text = "Thinking of buying a 96 gig MacBook Pro for 65B models since my 4090 can't handle them. will it run?"
    final = ask_checked(advisor, text, consistent=True)
    assert "Yes" in lead_of(final.answer), final.answer
    assert "RTX 4090 you have" in final.answer, final.answer


@pytest.mark.parametrize(
    ("text", "head"),
    [
        ("AirLLM runs 70B on 4GB vram, so can I finetune a 70B on one 4090 (24GB) too?", "smaller model"),
        ("could i fine-tune a 70B model on a single RTX 3090 24G?", "smaller model"),
        ("我只有一张3090，能微调70B的模型吗？", "更小模型"),
    ],
)
def test_a_fine_tune_nothing_fits_names_the_smaller_one_the_card_tunes(advisor, text, head) -> None:
    final = ask_checked(advisor, text, consistent=True)
    assert head in final.answer and ("QLoRA fine-tuning up to" in final.answer or "QLoRA 微调最大" in final.answer)


def test_a_fine_tune_that_fits_with_qlora_lists_no_smaller_model(advisor) -> None:
    final = ask_checked(advisor, "can I full fine-tune llama 3 8b on my 3060 12gb?")
    assert "smaller model these cards" not in final.answer, final.answer


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("running 34b unquantized on 4x4090 works fine, uses about 69.49GB total. would 3 4090s be enough?", 3),
        ("we serve llama 3 70b on 4x A100 80GB today. would 2 A100 80GB be enough?", 2),
    ],
)
def test_the_asked_count_is_sized(advisor, text, count) -> None:
    final = ask_checked(advisor, text)
    assert any(c.args.get("num_gpus") == count for c in final.tool_calls), final.tool_calls


@pytest.mark.parametrize(
    "text",
    [
        "Planning to buy two A100 80GB cards for llama3:70b-instruct-fp16 in ollama. Will ollama use both GPUs' VRAM?",
        "gonna get 2x A100 80G for llama 3 70B at f16. does ollama split the 140gb model across both cards on its own?",
        "can llama.cpp use the vram of both my 3090s for a 70b q4?",
        "ollama 能不能把两张卡的显存合起来用",
    ],
)
def test_the_cards_memory_pooled_is_asked(text) -> None:
    assert parse(text).asks_per_card


def test_the_pooled_answer_says_how_the_engine_splits(advisor) -> None:
    text = "Planning to buy two A100 80GB cards to run llama3:70b-instruct-fp16 in ollama. Will ollama use both GPUs' VRAM?"
    final = ask_checked(advisor, text, consistent=True)
    assert "--tensor-parallel-size 2" in final.answer, final.answer


@pytest.mark.parametrize(
    ("text", "card"),
    [
        (
            "Currently on an RTX 3050 with koboldcpp. Would buying a 4090 make token generation on 70B models much "
            "faster? 70B on CPU is painfully slow",
            "rtx-4090",
        ),
        ("I have a 3060 and llama 3 70b is super slow, would buying a 3090 make it usable?", "rtx-3090"),
        ("我有一张3060，跑qwen2.5 32b很慢，买一张4090会快很多吗", "rtx-4090"),
    ],
)
def test_a_card_bought_to_fix_a_slow_run_is_sized_for_the_job(text, card) -> None:
    q = parse(text)
    assert q.gpu == card and q.intents[0] == "fit" and "diagnose" not in q.intents, q


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("Task manager and the fans on my PC suggest otherwise, ollama uses the CPU with my two 3090s", "recommend"),
        ("Do I need to buy an NVLink bridge for my two 3090s?", "recommend"),
    ],
)
def test_words_that_ask_no_card_to_buy(text, intent) -> None:
    assert intent not in parse(text).intents


def test_a_suggestion_asked_is_still_a_recommendation() -> None:
    assert "recommend" in parse("can you suggest an external GPU for my laptop?").intents


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("llama-7b OOMs on my 24 gig RTX 3090Ti?? thought it only needed ~8.5G vram", ("KV cache", "batch")),
        ("qwen2.5 7b out of memory on my A100 40GB, why?", ("KV cache", "batch")),
        ("3090跑qwen2.5-7b爆显存了，不是说只要15G吗", ("KV cache", "batch")),
    ],
)
def test_a_fits_but_oom_lead_names_the_usual_culprit(advisor, text, words) -> None:
    lead = lead_of(ask_checked(advisor, text).answer)
    assert all(w in lead for w in words), lead


@pytest.mark.parametrize(
    "text",
    [
        "why aren't T4/K80/V100 supported? with two K80s I'd have 48GB",
        "K80/M40/P40 为什么都不支持了？",
    ],
)
def test_cards_listed_in_a_support_question_are_not_a_choice(text) -> None:
    assert "compare" not in parse(text).intents


def test_cards_listed_after_which_are_still_a_choice() -> None:
    assert "compare" in parse("which is best? 1080ti, 2080ti, 3080").intents


@pytest.mark.parametrize(
    ("text", "budget"),
    [
        ("got about a grand to spend on a GPU for training, what should I get?", 1000.0),
        ("I have 2 grand for a GPU for llama, what should I buy?", 2000.0),
        ("1.5 grand budget, best card for local llms?", 1500.0),
    ],
)
def test_grand_is_thousands_of_dollars(text, budget) -> None:
    q = parse(text)
    assert q.budget == budget and q.currency == "USD", q


def test_a_grand_total_is_no_money() -> None:
    assert parse("a grand total of 96GB vram across my cards").budget is None


@pytest.mark.parametrize("text", ["cheapest aws box that'll run gpt-j-6b?", "smallest cloud machine for llama 3 8b?"])
def test_a_cloud_box_asked_is_where_to_rent(text) -> None:
    assert "rent_where" in parse(text).intents
