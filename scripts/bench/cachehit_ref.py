#!/usr/bin/env python3
"""The reference replay for scripts/bench/cachehit: the as-routed rung of a trace written by
cachehit_gen.py, by the textbook LRU (collections.OrderedDict), written independently of the
Rust replay. Each request hits its leading cached blocks (never its last block: the engine
always computes the prompt's last token), then touches its blocks deepest first.

Usage: cachehit_ref.py TRACE  → prints `as_routed HIT_TOKENS PROMPT_TOKENS`
"""
import json
import sys
from collections import OrderedDict

pools, cap, bs = {}, {}, 16
hits = prompt = 0
with open(sys.argv[1]) as f:
    for line in f:
        rec = json.loads(line)
        if "stream" in rec:
            bs = rec["stream"]["block_size"]
        elif "replica" in rec:
            r = rec["replica"]
            pools[r["name"]] = OrderedDict()
            cap[r["name"]] = r["num_blocks"]
        elif "request" in rec:
            q = rec["request"]
            pool, c = pools[q["replica"]], cap[q["replica"]]
            blocks = q["blocks"]
            lookup = (q["prompt_tokens"] - 1) // bs
            h = 0
            for b in blocks[:lookup]:
                if b not in pool:
                    break
                h += 1
            hits += h * bs
            prompt += q["prompt_tokens"]
            for b in reversed(blocks):
                if b in pool:
                    pool.move_to_end(b)
                else:
                    pool[b] = None
                    if len(pool) > c:
                        pool.popitem(last=False)
print("as_routed", hits, prompt)
