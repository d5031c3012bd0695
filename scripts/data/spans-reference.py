#!/usr/bin/env python3
"""Reference values for rankeval's span qrels (crates/rankeval/src/spans.rs).

Independent of the Rust code: text is plain sets of (doc, character index),
standard library only. For generated queries (relevant spans and a run of
chunks), it writes each query's character-level precision, recall and IoU
over the top k chunks, and each chunk's grade under three overlap rules, to
crates/rankeval/tests/data/spans_reference.json, which
crates/rankeval/tests/spans.rs compares with the library within 1e-12.

    python3 scripts/data/spans-reference.py

Definitions (docs/judgements.md, "Retrieval for RAG, judged on text spans"):
  retrieved = the characters of the top k chunks (ranked by score
              descending, ties by chunk id `doc#start-end` descending)
  relevant  = the characters of the spans of grade >= 1
  precision = |retrieved & relevant| / |retrieved|   (0 if nothing retrieved)
  recall    = |retrieved & relevant| / |relevant|
  IoU       = |retrieved & relevant| / |retrieved | relevant|
  a chunk matches a span under
    any          : they share a character
    iou>=t       : |c & s| / |c | s| >= t
    coverage>=t  : |c & s| / |s| >= t  (and they share a character)
  a chunk's grade: the highest grade of the spans of its query and document
  it matches, 0 if it matches none, None if the document has no span.
"""

import json
import os


class Lcg:
    """A 64-bit linear congruential generator (Knuth's MMIX constants)."""

    def __init__(self, seed):
        self.state = seed

    def next(self, n):
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) % 2**64
        return (self.state >> 33) % n


def chars(doc, start, end):
    return {(doc, i) for i in range(start, end)}


def matches(rule, threshold, chunk, span):
    c = set(range(chunk[0], chunk[1]))
    s = set(range(span[0], span[1]))
    common = len(c & s)
    if common == 0:
        return False
    if rule == "any":
        return True
    if rule == "iou":
        return common / len(c | s) >= threshold
    return common / len(s) >= threshold


RULES = [("any", None, "any"), ("iou", 0.5, "iou>=0.5"), ("coverage", 0.5, "coverage>=0.5")]


def case(rng, number):
    docs = ["d%d" % i for i in range(1 + rng.next(3))]
    spans = []
    for _ in range(1 + rng.next(4)):
        doc = docs[rng.next(len(docs))]
        start = rng.next(300)
        end = start + 1 + rng.next(80)
        spans.append({"doc": doc, "start": start, "end": end, "grade": rng.next(4)})
    if all(s["grade"] == 0 for s in spans):
        spans[0]["grade"] = 1
    chunks = []
    seen = set()
    for i in range(rng.next(8)):
        doc = docs[rng.next(len(docs))] if rng.next(4) else "other"
        start = rng.next(350)
        end = start + 1 + rng.next(60)
        if (doc, start, end) in seen:
            continue
        seen.add((doc, start, end))
        # Some tied scores: ties go by chunk id, descending.
        chunks.append({"doc": doc, "start": start, "end": end, "score": float(rng.next(5))})
    k = None if rng.next(3) == 0 else 1 + rng.next(5)

    def chunk_id(c):
        return "%s#%d-%d" % (c["doc"], c["start"], c["end"])

    ranked = sorted(chunks, key=lambda c: chunk_id(c).encode(), reverse=True)
    ranked = sorted(ranked, key=lambda c: -c["score"])
    top = ranked if k is None else ranked[:k]
    retrieved = set()
    for c in top:
        retrieved |= chars(c["doc"], c["start"], c["end"])
    relevant = set()
    for s in spans:
        if s["grade"] >= 1:
            relevant |= chars(s["doc"], s["start"], s["end"])
    both = len(retrieved & relevant)
    expected = {
        "precision": both / len(retrieved) if retrieved else 0.0,
        "recall": both / len(relevant),
        "iou": both / len(retrieved | relevant),
    }
    grades = {}
    for rule, threshold, name in RULES:
        row = []
        for c in chunks:
            own = [s for s in spans if s["doc"] == c["doc"]]
            if not own:
                row.append(None)
                continue
            ok = [s["grade"] for s in own if matches(rule, threshold, (c["start"], c["end"]), (s["start"], s["end"]))]
            row.append(float(max(ok)) if ok else 0.0)
        grades[name] = row
    return {
        "query": "q%d" % number,
        "spans": spans,
        "chunks": chunks,
        "k": k,
        "expected": expected,
        "grades": grades,
    }


def main():
    rng = Lcg(20261126)
    cases = [case(rng, n) for n in range(100)]
    here = os.path.dirname(os.path.abspath(__file__))
    out = os.path.join(here, "..", "..", "crates", "rankeval", "tests", "data", "spans_reference.json")
    with open(out, "w") as f:
        json.dump({"cases": cases}, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print("wrote %d cases to %s" % (len(cases), os.path.normpath(out)))


if __name__ == "__main__":
    main()
