"""Multi-turn chat load for the router and cache-hit benchmarks: one thread per conversation,
streaming chat completions; every conversation opens with one shared system prompt and its own
first message, and each later turn re-sends the whole history (the model's replies included)
plus a new message, as a chat client does. Writes per-turn TTFT records as JSON.

Usage: chat_drive.py PORT CONVERSATIONS TURNS GEN SYSTEM_WORDS FIRST_WORDS TURN_WORDS OUT.json [SEED]
SEED (default 0) varies every text, so two runs on one warm server share nothing but shape.
"""
import http.client, json, random, sys, threading, time
port, convs, turns, gen, n_system, n_first, n_turn, out = sys.argv[1:9]
seed = int(sys.argv[9]) if len(sys.argv) > 9 else 0
convs, turns, gen, n_system, n_first, n_turn = map(int, (convs, turns, gen, n_system, n_first, n_turn))
WORDS = ("ship order parcel route depot truck invoice customer refund delay weather harbor "
         "crane pallet label scanner warehouse driver schedule manifest customs tariff border "
         "container freight rail barge dock shelf ticket claim damage insurance address window "
         "morning evening weekday holiday signature receipt tracking number status priority "
         "express standard fragile heavy light cold frozen fresh paper metal glass wood cloth "
         "north south east west river bridge tunnel station airport runway cargo hold engine").split()
def words(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n))
system = "You are the dispatcher's assistant at a freight company. Answer briefly. Glossary: " + words(random.Random(seed), n_system)
records, lock = [], threading.Lock()
def send(messages):
    # include_usage: the final chunk carries the token counts (a recording tap reads them).
    body = json.dumps({"model": "smollm2-135m", "messages": messages, "max_tokens": gen,
                       "temperature": 0, "stream": True,
                       "stream_options": {"include_usage": True}})
    c = http.client.HTTPConnection("127.0.0.1", int(port), timeout=900)
    t0 = time.monotonic()
    c.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
    r = c.getresponse()
    if r.status != 200:
        raise RuntimeError(f"HTTP {r.status}: {r.read()[:300]!r}")
    ttft, text = None, []
    for raw in r:
        line = raw.decode().strip()
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            break
        for ch in json.loads(data).get("choices", []):
            piece = (ch.get("delta") or {}).get("content")
            if piece is not None and (piece or ch.get("finish_reason")) and ttft is None:
                ttft = time.monotonic() - t0
            text.append(piece or "")
    total = time.monotonic() - t0
    c.close()
    return (ttft if ttft is not None else total), total, "".join(text)
errors = []
def conversation(i):
    try:
        converse(i)
    except Exception as e:  # a thread's exception would not stop the run
        errors.append(f"conversation {i}: {e}")
def converse(i):
    rng = random.Random(1000 + i + 100003 * seed)
    messages = [{"role": "system", "content": system},
                {"role": "user", "content": f"Case {i}: " + words(rng, n_first)}]
    for t in range(1, turns + 1):
        ttft, total, reply = send(messages)
        with lock:
            records.append({"conversation": i, "turn": t, "ttft_s": ttft, "total_s": total})
        print(f"  conversation {i} turn {t}: TTFT {ttft:.2f} s", file=sys.stderr, flush=True)
        messages += [{"role": "assistant", "content": reply},
                     {"role": "user", "content": words(rng, n_turn)}]
threads = [threading.Thread(target=conversation, args=(i,)) for i in range(convs)]
for th in threads: th.start()
for th in threads: th.join()
json.dump(records, open(out, "w"))
if errors or len(records) != convs * turns:
    raise SystemExit(f"{len(records)} of {convs * turns} turns completed; " + "; ".join(errors))
