#!/usr/bin/env python3
"""Corpus metrics checked against the peers on the same data.

Writes a small recommender dataset (seeded, numpy PCG64) and the values the
peers give on it to crates/rankeval/tests/data/corpus_peers/, which the test
`corpus::peers_give_the_same_values` (crates/rankeval/tests/corpus.rs) reads
through `rankeval run` 's own code path (experiment.toml in that folder).

Peers:

* RecTools (installed with pip, run as is): CatalogCoverage,
  AvgRecPopularity, MeanInvUserFreq, IntraListDiversity with
  PairwiseHammingDistanceCalculator.
* RecBole (not installed: it needs PyTorch): GiniIndex, ShannonEntropy and
  AveragePopularity re-implemented line for line from
  RUCAIBox/RecBole recbole/evaluator/metrics.py (get_gini, get_entropy,
  get_pop + metric_info).
* Elliot (not installed: its pinned TensorFlow 2.3 does not install on a
  current Python): APLT re-implemented from sisinflab/elliot
  elliot/evaluation/metrics/bias/aplt/aplt.py and the long tail of
  elliot/evaluation/popularity_utils.py (Popularity.get_long_tail).
* The cosine ILD has no peer (RecTools ships Hamming calculators only): its
  reference is numpy's 1 - x.y / (|x| |y|) over the same pairs.

Usage (a venv under target/, as scripts/test/python.sh does):

    python3 -m venv target/peer-venv
    target/peer-venv/bin/pip install rectools
    target/peer-venv/bin/python scripts/data/corpus-peers.py
"""

import json
import math
import sys
from collections import Counter
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd

SEED = 16
OUT = Path(__file__).resolve().parents[2] / "crates/rankeval/tests/data/corpus_peers"
KS = (5, 10)


def make_data(rng):
    """Items i00..i59 (the catalog); training over i00..i49 only (i50..i59
    are new items); 30 lists of 10; 4 integer features per item, none for
    i58 and i59."""
    items = [f"i{n:02d}" for n in range(60)]
    weights = np.array([1.0 / (n + 1) ** 0.9 for n in range(50)])
    weights /= weights.sum()
    train = []
    for u in range(80):
        size = int(rng.integers(2, 9))
        chosen = rng.choice(50, size=size, replace=False, p=weights)
        train += [(f"t{u:02d}", items[c]) for c in sorted(chosen)]
    mix = np.concatenate([weights * 0.6, np.full(10, 0.4 / 10)])
    mix /= mix.sum()
    reco = []
    for u in range(30):
        chosen = rng.choice(60, size=10, replace=False, p=mix)
        reco += [(f"u{u:02d}", items[c], rank + 1) for rank, c in enumerate(chosen)]
    features = {}
    for n, item in enumerate(items[:58]):
        vector = [int(x) for x in rng.integers(0, 3, size=4)]
        vector[0] += 1  # no zero vector: the cosine is defined for every pair
        features[item] = vector
    return items, train, reco, features


def rectools_values(items, train, reco, features):
    from rectools import Columns
    from rectools.metrics import (
        AvgRecPopularity,
        CatalogCoverage,
        IntraListDiversity,
        MeanInvUserFreq,
    )
    from rectools.metrics.distances import PairwiseHammingDistanceCalculator

    reco_df = pd.DataFrame(reco, columns=[Columns.User, Columns.Item, Columns.Rank])
    train_df = pd.DataFrame(train, columns=[Columns.User, Columns.Item])
    features_df = pd.DataFrame.from_dict(features, orient="index", columns=["f1", "f2", "f3", "f4"])
    hamming = PairwiseHammingDistanceCalculator(features_df.astype(float))
    out = {}
    for k in KS:
        out[f"catalog_coverage@{k}"] = (
            CatalogCoverage(k=k, normalize=True).calc(reco_df, np.array(items)),
            f"RecTools CatalogCoverage(k={k}, normalize=True)",
        )
        out[f"catalog_coverage(normalize=false)@{k}"] = (
            CatalogCoverage(k=k, normalize=False).calc(reco_df, np.array(items)),
            f"RecTools CatalogCoverage(k={k}, normalize=False)",
        )
        out[f"avg_popularity@{k}"] = (
            AvgRecPopularity(k=k).calc(reco_df, train_df),
            f"RecTools AvgRecPopularity(k={k})",
        )
        out[f"novelty@{k}"] = (
            MeanInvUserFreq(k=k).calc(reco_df, train_df),
            f"RecTools MeanInvUserFreq(k={k})",
        )
        out[f"ild(distance=hamming)@{k}"] = (
            IntraListDiversity(k=k, distance_calculator=hamming).calc(reco_df),
            f"RecTools IntraListDiversity(k={k}, PairwiseHammingDistanceCalculator)",
        )
    return out


def recbole_values(items, train, reco):
    """RecBole's code, on an item matrix of users x 10 (ids as strings)."""
    users = sorted({u for u, _, _ in reco})
    matrix = np.array([[i for u2, i, _ in sorted(reco, key=lambda r: r[2]) if u2 == u] for u in users])
    num_items = len(items)  # RecBole's data.num_items also counts its [PAD] id; see docs
    count_items = dict(Counter(i for _, i in train))
    out = {}
    for k in KS:
        item_matrix = matrix[:, :k]
        # GiniIndex.get_gini
        item_count = dict(Counter(item_matrix.flatten()))
        sorted_count = np.array(sorted(item_count.values()))
        num_recommended_items = sorted_count.shape[0]
        total_num = item_matrix.shape[0] * item_matrix.shape[1]
        idx = np.arange(num_items - num_recommended_items + 1, num_items + 1)
        gini = np.sum((2 * idx - num_items - 1) * sorted_count) / total_num
        gini /= num_items
        out[f"gini@{k}"] = (gini, f"RecBole GiniIndex (topk={k}, num_items={num_items})")
        # ShannonEntropy.get_entropy: its code divides the sum by the
        # number of distinct recommended items; rankeval's entropy is the
        # sum (the formula in RecBole's docstring), so the expected value
        # is RecBole's times that number.
        result = 0.0
        for cnt in item_count.values():
            p = cnt / total_num
            result += -p * np.log(p)
        recbole_entropy = result / len(item_count)
        out[f"entropy@{k}"] = (
            recbole_entropy * len(item_count),
            f"RecBole ShannonEntropy (topk={k}) = {recbole_entropy!r}, times the {len(item_count)} distinct items",
        )
        # AveragePopularity.get_pop + metric_info + topk_result (mean over users)
        value = np.zeros(matrix.shape, dtype=float)
        for a in range(matrix.shape[0]):
            for b in range(matrix.shape[1]):
                value[a][b] = count_items.get(matrix[a][b], 0)
        cumulative = value.cumsum(axis=1) / np.arange(1, value.shape[1] + 1)
        out[f"avg_popularity@{k}#recbole"] = (
            cumulative.mean(axis=0)[k - 1],
            f"RecBole AveragePopularity (topk={k})",
        )
    return out


def elliot_values(train, reco):
    """Elliot's Popularity.get_long_tail and APLT, with its private item
    ids in item id order (so ties in popularity are broken by id)."""
    pop_items = {}
    for item in sorted({i for _, i in train}):
        pop_items[item] = len({u for u, i in train if i == item})
    transactions = len(set(train))
    sorted_pop_items = dict(sorted(pop_items.items(), key=lambda kv: kv[1], reverse=True))
    out = {}
    for pop_ratio in (0.8, 0.5):
        short_head_limit = transactions * pop_ratio
        short_head = []
        for i, pop in sorted_pop_items.items():
            short_head.append(i)
            short_head_limit -= pop
            if short_head_limit <= 0:
                break
        long_tail = [i for i in sorted_pop_items.keys() if i not in set(short_head)]
        for k in KS:
            per_user = []
            for u in sorted({u for u, _, _ in reco}):
                recs = [i for u2, i, r in sorted(reco, key=lambda r: r[2]) if u2 == u][:k]
                per_user.append(len(set(recs) & set(long_tail)) / len(recs))
            name = "long_tail_share" + ("" if pop_ratio == 0.8 else f"(head_share={pop_ratio})") + f"@{k}"
            out[name] = (float(np.average(per_user)), f"Elliot APLT (cutoff={k}, pop_ratio={pop_ratio})")
    return out


def cosine_values(reco, features):
    out = {}
    for k in KS:
        per_user = []
        for u in sorted({u for u, _, _ in reco}):
            recs = [i for u2, i, r in sorted(reco, key=lambda r: r[2]) if u2 == u][:k]
            distances = []
            for a, b in combinations(recs, 2):
                if a in features and b in features:
                    x, y = np.array(features[a], float), np.array(features[b], float)
                    distances.append(1 - x.dot(y) / (np.linalg.norm(x) * np.linalg.norm(y)))
            per_user.append(sum(distances) / len(distances) if distances else 0.0)
        out[f"ild@{k}"] = (float(np.mean(per_user)), "numpy: mean pairwise 1 - cosine (no peer has it)")
    return out


def main():
    rng = np.random.default_rng(SEED)
    print(f"seed {SEED} (numpy PCG64)", file=sys.stderr)
    items, train, reco, features = make_data(rng)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "catalog.txt").write_text("".join(f"{i}\n" for i in items))
    (OUT / "train.csv").write_text("user,item\n" + "".join(f"{u},{i}\n" for u, i in train))
    (OUT / "reco.csv").write_text("user,item,rank\n" + "".join(f"{u},{i},{r}\n" for u, i, r in reco))
    (OUT / "item_features.csv").write_text(
        "item,f1,f2,f3,f4\n" + "".join(f"{i},{','.join(map(str, v))}\n" for i, v in features.items())
    )
    # The accuracy side is not checked here: the truth is the first item of each list.
    (OUT / "truth.csv").write_text(
        "user,item\n" + "".join(f"{u},{i}\n" for u, i, r in reco if r == 1)
    )
    expected = {}
    for part in (
        rectools_values(items, train, reco, features),
        recbole_values(items, train, reco),
        elliot_values(train, reco),
        cosine_values(reco, features),
    ):
        for name, (value, peer) in part.items():
            expected[name] = {"value": float(value), "peer": peer}
    import rectools

    document = {
        "generated_by": "scripts/data/corpus-peers.py",
        "seed": SEED,
        "rectools_version": rectools.__version__,
        "values": expected,
    }
    (OUT / "expected.json").write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")
    for name, entry in sorted(expected.items()):
        print(f"{name:40} {entry['value']!r:24} {entry['peer']}")


if __name__ == "__main__":
    main()
