#!/usr/bin/env python3
"""A request stream for `headroom cachehit`, as `headroom route --trace` writes it (blocks, no
prompts), routed three ways over the same load.

Usage: cachehit_gen.py N REPLICAS BLOCKS_PER_REPLICA OUTDIR

Writes OUTDIR/{round-robin,random,sticky}.jsonl: N requests from conversations over 8 system
prompts of 32 blocks (512 tokens), each turn adding 6 blocks, 1 to 8 turns; a new conversation
starts while others continue (a window of 400 live conversations). Prompts are whole blocks and
output_tokens is 0, so the reference replay in cachehit_ref.py needs no partial blocks.
Deterministic: the same arguments write the same files.
"""
import json
import os
import random
import sys

n, replicas, blocks = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
out = sys.argv[4]
BS = 16
rng = random.Random(7)
fresh = lambda: rng.getrandbits(64)
systems = [[fresh() for _ in range(32)] for _ in range(8)]

# The load: (conversation id, blocks) per request, in arrival order.
load = []
live = []
next_conv = 0
while len(load) < n:
    if len(live) < 400:
        turns = rng.randint(1, 8)
        live.append([next_conv, list(systems[rng.randrange(8)]), turns])
        next_conv += 1
        continue
    i = rng.randrange(len(live))
    conv = live[i]
    conv[1].extend(fresh() for _ in range(6))
    load.append((conv[0], list(conv[1])))
    conv[2] -= 1
    if conv[2] == 0:
        live.pop(i)

routes = {
    "round-robin": lambda k, c: k % replicas,
    "random": lambda k, c, r=random.Random(11): r.randrange(replicas),
    "sticky": lambda k, c: (c * 0x9E3779B1) % (2**32) % replicas,
}
os.makedirs(out, exist_ok=True)
for name, route in routes.items():
    with open(os.path.join(out, name + ".jsonl"), "w") as f:
        f.write(json.dumps({"stream": {"block_size": BS, "tokenizer": "synthetic block ids"}}) + "\n")
        for r in range(replicas):
            f.write(json.dumps({"replica": {"name": f"r{r}", "num_blocks": blocks, "block_size": BS}}) + "\n")
        for k, (c, bl) in enumerate(load):
            f.write(json.dumps({"request": {
                "replica": f"r{route(k, c)}",
                "conversation": f"c{c}",
                "blocks": ["%016x" % b for b in bl],
                "prompt_tokens": len(bl) * BS,
            }}, separators=(",", ":")) + "\n")
