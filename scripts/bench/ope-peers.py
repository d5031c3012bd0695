#!/usr/bin/env python3
"""The peers' side of scripts/bench/ope.sh: obp's estimators (IPW, SNIPW,
DoublyRobust, SlateStandardIPS) on the arrays ope-logs.py wrote, or, with
--numpy or when obp does not import, the plain numpy reference
definitions (scripts/cross-check/ope-reference.py's formulas). Prints one
JSON object: the seconds to build the arrays the estimators take, the
seconds of each estimator, the estimates, and the process's peak resident
memory (KiB).

Run:  python3 scripts/bench/ope-peers.py DIR [--numpy]
(OBP_SLATE_MAX, default 200,000: obp's SlateStandardIPS takes about 1.4 ms
per slate, so above that many slates the numpy definition stands in, and
the output says so under "slate_peer".)
"""

import json
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np


def main() -> None:
    where = Path(sys.argv[1])
    use_numpy = "--numpy" in sys.argv[2:]
    peer = "numpy"
    if not use_numpy:
        try:
            import obp  # noqa: F401
            from obp.ope import DoublyRobust, InverseProbabilityWeighting, SelfNormalizedInverseProbabilityWeighting
            from obp.ope import SlateStandardIPS

            peer = f"obp {obp.__version__}"
        except ImportError:
            peer = "numpy"
    out = {"peer": peer, "seconds": {}, "estimates": {}}
    clock = time.perf_counter

    start = clock()
    b = np.load(where / "bandit.npz")
    contexts, actions, rewards, pscore = b["contexts"], b["actions"], b["rewards"], b["pscore"]
    top, qhat = b["top"], b["qhat"]
    n, k = len(actions), qhat.shape[1]
    out["seconds"]["load"] = clock() - start

    start = clock()
    if peer != "numpy":
        action_dist = np.zeros((n, k, 1))
        action_dist[np.arange(n), top[contexts], 0] = 1.0
        estimated = qhat[contexts][:, :, None]
    target = (actions == top[contexts]).astype(np.float64)
    out["seconds"]["arrays"] = clock() - start

    def timed(name, f):
        start = clock()
        value = f()
        out["seconds"][name] = clock() - start
        out["estimates"][name] = float(value)

    if peer != "numpy":
        timed("ips", lambda: InverseProbabilityWeighting().estimate_policy_value(
            reward=rewards, action=actions, pscore=pscore, action_dist=action_dist))
        timed("snips", lambda: SelfNormalizedInverseProbabilityWeighting().estimate_policy_value(
            reward=rewards, action=actions, pscore=pscore, action_dist=action_dist))
        timed("dr", lambda: DoublyRobust().estimate_policy_value(
            reward=rewards, action=actions, pscore=pscore, action_dist=action_dist,
            estimated_rewards_by_reg_model=estimated))
    else:
        w = target / pscore
        timed("ips", lambda: np.mean(w * rewards))
        timed("snips", lambda: np.sum(w * rewards) / np.sum(w))
        q_logged = qhat[contexts, actions]
        q_target = qhat[contexts, top[contexts]]
        timed("dr", lambda: np.mean(q_target + w * (rewards - q_logged)))
    del b

    start = clock()
    s = np.load(where / "slate.npz")
    sc, slates, probability, position_rewards, target_top = (
        s["contexts"], s["slates"], s["probability"], s["rewards"], s["target_top"])
    n, length = slates.shape
    out["seconds"]["load"] += clock() - start
    start = clock()
    match = np.all(slates == target_top[sc], axis=1).astype(np.float64)
    if peer != "numpy":
        slate_id = np.repeat(np.arange(n), length)
        reward = position_rewards.ravel()
        pscore_slate = np.repeat(probability, length)
        position = np.tile(np.arange(length), n)
        evaluation = np.repeat(match, length)
    out["seconds"]["arrays"] += clock() - start
    # obp's SlateStandardIPS takes about 1.4 ms per slate here (28 s for
    # 20,000): beyond OBP_SLATE_MAX slates the numpy definition stands in.
    slate_max = int(os.environ.get("OBP_SLATE_MAX", "200000"))
    if peer != "numpy" and n <= slate_max:
        timed("slate_ips", lambda: SlateStandardIPS(len_list=length).estimate_policy_value(
            slate_id=slate_id, reward=reward, pscore=pscore_slate, position=position,
            evaluation_policy_pscore=evaluation))
    else:
        if peer != "numpy":
            out["slate_peer"] = f"numpy (obp's SlateStandardIPS beyond {slate_max} slates)"
        timed("slate_ips", lambda: np.mean(match / probability * position_rewards.sum(axis=1)))
    out["peak_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps(out))


if __name__ == "__main__":
    main()
