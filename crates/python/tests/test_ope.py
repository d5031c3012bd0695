"""`rankeval_rs.ope`: the request `rankeval ope`'s flags and an `[ope]` TOML
table fill (one spec, rankeval::spec::OpeSpec), from Python's keywords: the
same report, and a bad value refused with the same words after its origin."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import rankeval_rs

from conftest import cli


def bandit_log() -> str:
    """The CLI tests' log (crates/cli/tests/cli/ope.rs): 60 impressions over
    three contexts and four items, item `a` logged with probability 0.4."""
    lines = ["context,impression,item,reward,propensity"]
    for n in range(60):
        item = ["a", "a", "b", "c", "d"][n % 5]
        p = 0.4 if item == "a" else 0.2
        reward = int((item == "a" and n % 3 != 1) or (item == "c" and n % 2 == 0))
        lines.append(f"q{n % 3 + 1},{n + 1},{item},{reward},{p}")
    return "\n".join(lines) + "\n"


def ranking(first: str, name: str) -> str:
    out = []
    for q in range(1, 4):
        order = [first] + [i for i in "abcd" if i != first]
        out += [f"q{q} Q0 {item} {rank + 1} {4 - rank} {name}" for rank, item in enumerate(order)]
    return "\n".join(out) + "\n"


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "log.csv").write_text(bandit_log())
    (tmp_path / "prod.trec").write_text(ranking("a", "prod"))
    (tmp_path / "new.trec").write_text(ranking("c", "new"))
    return tmp_path


def flags(d: Path) -> list[str]:
    return ["ope", "--log", str(d / "log.csv"), "--policy", f"prod={d / 'prod.trec'}",
            "--policy", str(d / "new.trec")]


def test_the_report_is_the_command_lines(files: Path) -> None:
    done = cli(*flags(files), "-e", "ips", "-e", "snips", "--min-ess", "5",
               "--gate", "snips:at_least(floor=0.1)", "--format", "json")
    assert done.returncode == 0, done.stderr
    report = rankeval_rs.ope(
        files / "log.csv", {"prod": files / "prod.trec", "new": files / "new.trec"},
        estimators=["ips", "snips"], min_ess=5, gates=["snips:at_least(floor=0.1)"],
    )
    assert json.loads(report.json) == json.loads(done.stdout)
    assert not report.refused and report.passed
    rows = {(e["policy"], e["estimator"]): e for e in report.estimates}
    assert rows[("prod", "ips")]["value"] == pytest.approx(2 / 3, abs=1e-15)
    assert rows[("new", "snips")]["ess"] == 12.0
    assert [c["candidate"] for c in report.comparisons] == ["new", "new"]
    assert str(report).startswith("log: ")


def test_a_refusal_is_in_the_report(files: Path) -> None:
    report = rankeval_rs.ope(files / "log.csv", [files / "prod.trec"], estimators="snips")
    assert report.refused
    (row,) = report.estimates
    assert row["value"] is None and row["refused"]
    assert row["refusals"] == [{"reason": "low_effective_sample_size", "ess": 24.0, "min": 100.0}]
    allowed = rankeval_rs.ope(files / "log.csv", files / "prod.trec", allow_low_support=True)
    assert allowed.estimates[0]["value"] == pytest.approx(2 / 3, abs=1e-15)


def test_to_pandas(files: Path) -> None:
    pd = pytest.importorskip("pandas")
    report = rankeval_rs.ope(files / "log.csv", {"prod": files / "prod.trec"}, min_ess=5,
                             estimators=["ips", "snips"])
    frame = report.to_pandas()
    assert isinstance(frame, pd.DataFrame)
    assert list(frame["estimator"]) == ["ips", "snips"]


# (keyword, value, the flag as typed, the CLI's origin, Python's origin)
BAD = [
    ("min_ess", -1.0, "--min-ess=-1", "--min-ess -1: ", "min_ess=-1: "),
    ("min_ess", float("inf"), "--min-ess=1e400", "--min-ess inf: ", "min_ess=inf: "),
    ("min_support", 1.5, "--min-support=1.5", "--min-support 1.5: ", "min_support=1.5: "),
    ("level", 1.0, "--level=1", "--level 1: ", "level=1: "),
    ("estimators", ["ipps"], "-e=ipps", "-e ipps: ", "estimators=ipps: "),
    ("plackett_luce", 0.0, "--plackett-luce=0", "--plackett-luce 0: ", "plackett_luce=0: "),
    ("form", "bundle", None, None, "form=\"bundle\": "),
    ("reward_range", (1.0, 0.0), "--reward-range=1,0", "--reward-range 1,0: ", "reward_range=(1, 0): "),
]


@pytest.mark.parametrize("keyword,value,flag,cli_origin,py_origin", BAD)
def test_a_bad_value_is_refused_in_the_command_lines_words(
    files: Path, keyword: str, value: object, flag: str | None, cli_origin: str | None, py_origin: str
) -> None:
    with pytest.raises(ValueError) as raised:
        rankeval_rs.ope(files / "log.csv", [files / "prod.trec"], **{keyword: value})
    message = str(raised.value)
    assert message.startswith(py_origin), message
    if flag is None:
        return
    done = cli(*flags(files), flag)
    assert done.returncode == 2
    assert done.stderr.startswith("error: " + cli_origin), done.stderr
    assert message[len(py_origin):] == done.stderr[len("error: " + cli_origin):].rstrip("\n")


def test_a_gate_is_named_as_one(files: Path) -> None:
    with pytest.raises(rankeval_rs.CompareError) as raised:
        rankeval_rs.ope(files / "log.csv", [files / "prod.trec"], gates=["snips:frobnicate"])
    done = cli(*flags(files), "--gate", "snips:frobnicate")
    reason = done.stderr.removeprefix("error: --gate snips:frobnicate: ").rstrip("\n")
    assert str(raised.value) == f"gate `snips:frobnicate`: {reason}"


def test_missing_files_and_unknown_keywords(files: Path) -> None:
    with pytest.raises(rankeval_rs.InputError):
        rankeval_rs.ope(files / "gone.csv", [files / "prod.trec"])
    with pytest.raises(rankeval_rs.InputError):
        rankeval_rs.ope(files / "log.csv", [files / "gone.trec"])
    # Named by this front end's keywords (not the flag's or TOML's).
    with pytest.raises(ValueError, match=r"no target policy: give policies=\{NAME: RUNFILE\} "
                                         r"or target_column= NAME"):
        rankeval_rs.ope(files / "log.csv")
    with pytest.raises(TypeError):
        rankeval_rs.ope(files / "log.csv", [files / "prod.trec"], colour="red")  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="min_n=-1"):
        rankeval_rs.ope(files / "log.csv", [files / "prod.trec"], min_n=-1)
    with pytest.raises(ValueError, match="min_n=18446744073709551616"):
        rankeval_rs.ope(files / "log.csv", [files / "prod.trec"], min_n=2**64)


def test_the_bootstrap_and_the_correction_are_the_command_lines(files: Path) -> None:
    third = ranking("d", "third")
    (files / "third.trec").write_text(third)
    done = cli(*flags(files), "--policy", str(files / "third.trec"), "-e", "ips", "-e", "snips",
               "--min-ess", "5", "--interval", "bootstrap", "--resamples", "200", "--seed", "7",
               "--correction", "holm", "--format", "json")
    assert done.returncode == 0, done.stderr
    report = rankeval_rs.ope(
        files / "log.csv",
        {"prod": files / "prod.trec", "new": files / "new.trec", "third": files / "third.trec"},
        estimators=["ips", "snips"], min_ess=5, interval="bootstrap", resamples=200, seed=7,
        correction="holm",
    )
    assert json.loads(report.json) == json.loads(done.stdout)
    assert report.resampling is not None and report.resampling["seed"] == 7
    assert all(c["corrected_p_value"] is not None for c in report.comparisons)


BAD_RESAMPLING = [
    ({"interval": "bootstrap", "resamples": 0}, "--resamples=0", "--resamples 0: ", "resamples=0: "),
    ({"interval": "bootstrap", "resamples": 38}, "--resamples=38", "--resamples 38: ", "resamples=38: "),
    ({"seed": 3}, "--seed=3", "--seed 3: ", "seed=3: "),
    ({"correction": "sidak"}, "--correction=sidak", "--correction sidak: ", "correction=\"sidak\": "),
]


@pytest.mark.parametrize("keywords,flag,cli_origin,py_origin", BAD_RESAMPLING)
def test_bad_resampling_is_refused_in_the_command_lines_words(
    files: Path, keywords: dict, flag: str, cli_origin: str, py_origin: str
) -> None:
    with pytest.raises(ValueError) as raised:
        rankeval_rs.ope(files / "log.csv", [files / "prod.trec"], **keywords)
    message = str(raised.value)
    assert message.startswith(py_origin), message
    extra = ["--interval=bootstrap"] if keywords.get("interval") else []
    done = cli(*flags(files), *extra, flag)
    assert done.returncode == 2
    assert done.stderr.startswith("error: " + cli_origin), done.stderr
    reason = done.stderr[len("error: " + cli_origin):].rstrip("\n")
    # The command line names its flag where Python names its keyword.
    assert message[len(py_origin):] == reason.replace("--interval bootstrap", 'interval="bootstrap"')


def test_seeds_at_the_extremes(files: Path) -> None:
    top = rankeval_rs.ope(files / "log.csv", [files / "prod.trec"], interval="bootstrap",
                          resamples=39, seed=2**64 - 1, allow_low_support=True)
    assert top.resampling is not None and top.resampling["seed"] == 2**64 - 1
    for seed in (2**64, -1):
        with pytest.raises(ValueError, match=f"seed={seed}: a seed, from 0 to 2\\^64 - 1"):
            rankeval_rs.ope(files / "log.csv", [files / "prod.trec"], interval="bootstrap", seed=seed)


def test_groups_are_the_command_lines(files: Path) -> None:
    (files / "groups.csv").write_text("query,segment\nq1,head\nq2,tail\n")
    done = cli(*flags(files), "-e", "ips", "--min-ess", "5", "--min-n", "10",
               "--groups", str(files / "groups.csv"), "--format", "json")
    assert done.returncode == 0, done.stderr
    report = rankeval_rs.ope(files / "log.csv", {"prod": files / "prod.trec", "new": files / "new.trec"},
                             estimators="ips", min_ess=5, min_n=10, groups=files / "groups.csv")
    assert json.loads(report.json) == json.loads(done.stdout)
    assert [(column, value) for column, value, _ in report.groups] == [("segment", "head"), ("segment", "tail")]
    head = report.groups[0][2]
    assert head.log["impressions"] == 20 and len(head.estimates) == 2
    assert report.notes and "`q3`" in report.notes[0]


def marginal_log() -> str:
    """Slates of three over six items with marginal propensities and a
    reward per position (the CLI tests' `marginal_files`, 60 impressions)."""
    items = "abcdef"
    lines = []
    for n in range(60):
        q = n % 3 + 1
        shown = [items[(n // 3 + 2 * pos + q) % 6] for pos in range(3)]
        rewards = [int((n + pos * 5) % 7 < 2) for pos in range(3)]
        propensities = [0.2 + 0.1 * ((n + pos) % 3) for pos in range(3)]
        lines.append(json.dumps({"context": f"q{q}", "impression": f"m{n}", "item": shown,
                                 "reward": rewards, "propensity": propensities}))
    return "\n".join(lines) + "\n"


def scores() -> str:
    return "".join(f"q{q} Q0 {item} {rank + 1} {((rank * 7 + q * 3) % 5) * 0.5} pl\n"
                   for q in range(1, 4) for rank, item in enumerate("abcdef"))


def test_samples_and_one_seed_are_the_command_lines(tmp_path: Path) -> None:
    (tmp_path / "log.jsonl").write_text(marginal_log())
    (tmp_path / "pl.trec").write_text(scores())
    done = cli("ope", "--log", str(tmp_path / "log.jsonl"), "--form", "marginal", "--reward-per", "position",
               "--policy", str(tmp_path / "pl.trec"), "--plackett-luce", "0.8", "-e", "iips",
               "--allow-low-support", "--samples", "300", "--interval", "bootstrap", "--resamples", "100",
               "--seed", "5", "--format", "json")
    assert done.returncode == 0, done.stderr
    keywords: dict[str, Any] = dict(form="marginal", reward_per="position", plackett_luce=0.8, estimators="iips",
                                    allow_low_support=True)
    report = rankeval_rs.ope(tmp_path / "log.jsonl", [tmp_path / "pl.trec"], samples=300, interval="bootstrap",
                             resamples=100, seed=5, **keywords)
    assert json.loads(report.json) == json.loads(done.stdout)
    # One seed, both generators named.
    assert report.sampling is not None and report.resampling is not None
    assert (report.sampling["samples"], report.sampling["seed"]) == (300, 5)
    assert (report.resampling["resamples"], report.resampling["seed"]) == (100, 5)
    assert report.sampling["generator"].startswith("ChaCha8 ")
    # Samples without a bootstrap take the seed too; exact marginals differ.
    drawn = rankeval_rs.ope(tmp_path / "log.jsonl", [tmp_path / "pl.trec"], samples=300, seed=5, **keywords)
    exact = rankeval_rs.ope(tmp_path / "log.jsonl", [tmp_path / "pl.trec"], **keywords)
    assert drawn.estimates[0]["value"] == report.estimates[0]["value"]
    assert exact.sampling is None and exact.estimates[0]["value"] != drawn.estimates[0]["value"]
    for bad, says in [
        (dict(samples=0), "samples=0: draw 1 to 10000000 orderings per impression"),
        (dict(samples=-1), "samples=-1: a number of orderings, from 0 to 2^64 - 1"),
        (dict(samples=10, plackett_luce=None),
         "samples=10: only the Plackett-Luce marginals are drawn: give plackett_luce=TEMP"),
    ]:
        with pytest.raises(ValueError) as raised:
            rankeval_rs.ope(tmp_path / "log.jsonl", [tmp_path / "pl.trec"], **{**keywords, **bad})
        assert str(raised.value) == says


def click_log(with_propensity: bool = True) -> str:
    """The CLI tests' click log (crates/cli/tests/cli/ope_clicks.rs): 120
    impressions, one row per position, examination propensity 1/k."""
    lines = ["context,impression,item,position,reward" + (",propensity" if with_propensity else "")]
    items = "abcd"
    for n in range(120):
        context = "q1" if n % 2 == 0 else "q2"
        for k in range(4):
            item = items[(n // 2 + k) % 4]
            if context == "q1":
                click = (n // 2) % (k + 2) == 0
            else:
                click = item in "ac" and (n // 2) % 2 == 0 and k < 2
            row = f"{context},{n + 1},{item},{k + 1},{int(click)}"
            lines.append(row + (f",{1.0 / (k + 1)!r}" if with_propensity else ""))
    return "\n".join(lines) + "\n"


def test_click_logs_are_the_command_lines(tmp_path: Path) -> None:
    (tmp_path / "clicks.csv").write_text(click_log())
    (tmp_path / "bare.csv").write_text(click_log(with_propensity=False))
    for name, order in [("prod", "abcd"), ("new", "cadb")]:
        text = "".join(f"{q} Q0 {item} {rank + 1} {9 - rank} {name}\n"
                       for q in ("q1", "q2") for rank, item in enumerate(order))
        (tmp_path / f"{name}.trec").write_text(text)
    estimators = ["ips_dcg@10", "ips_rbp(p=0.8)", "ips_p@2", "ips_dcg@10(max_weight=3)"]
    done = cli("ope", "--log", str(tmp_path / "clicks.csv"), "--form", "examination",
               "--policy", f"prod={tmp_path / 'prod.trec'}", "--policy", f"new={tmp_path / 'new.trec'}",
               *[a for e in estimators for a in ("-e", e)], "--min-ess", "5", "--format", "json")
    assert done.returncode == 0, done.stderr
    policies = {"prod": tmp_path / "prod.trec", "new": tmp_path / "new.trec"}
    report = rankeval_rs.ope(tmp_path / "clicks.csv", policies, form="examination",
                             estimators=estimators, min_ess=5)
    assert json.loads(report.json) == json.loads(done.stdout)
    # Propensities per rank, as the power law or a list: 1/k, the column's.
    for examination in ["power(eta=1)", [1.0, 0.5, 1 / 3, 0.25]]:
        by_rank = rankeval_rs.ope(tmp_path / "bare.csv", policies, examination=examination,
                                  estimators=estimators, min_ess=5)
        assert [e["value"] for e in by_rank.estimates] == [e["value"] for e in report.estimates]
    # The same words as the flags, after the keyword.
    with pytest.raises(ValueError) as raised:
        rankeval_rs.ope(tmp_path / "bare.csv", policies, examination="power(eta=-1)")
    bad = cli("ope", "--log", str(tmp_path / "bare.csv"), "--policy", str(tmp_path / "prod.trec"),
              "--examination", "power(eta=-1)")
    assert bad.returncode == 2
    reason = bad.stderr.removeprefix("error: --examination power(eta=-1): ").rstrip("\n")
    assert str(raised.value) == f'examination="power(eta=-1)": {reason}'
    with pytest.raises(rankeval_rs.InputError, match="click 2 is not 0 or 1"):
        (tmp_path / "two.csv").write_text(click_log().replace(",1,1.0\n", ",2,1.0\n", 1))
        rankeval_rs.ope(tmp_path / "two.csv", policies, form="examination")


def test_samples_without_marginal_propensities_are_refused(files: Path) -> None:
    with pytest.raises(ValueError) as raised:
        rankeval_rs.ope(files / "log.csv", [files / "prod.trec"], form="cascade",
                        plackett_luce=1.0, samples=100)
    done = cli(*flags(files), "--form", "cascade", "--plackett-luce", "1", "--samples", "100")
    assert done.returncode == 2
    assert str(raised.value) == (
        "samples=100: only the Plackett-Luce marginals are drawn, and the log's propensities "
        'are of the form `cascade`: give form="marginal"')
    assert done.stderr == (
        "error: --samples 100: only the Plackett-Luce marginals are drawn, and the log's "
        "propensities are of the form `cascade`: give --form marginal\n")


def test_gates_on_groups_and_groups_in_family_are_the_command_lines(files: Path) -> None:
    (files / "groups.csv").write_text("query,segment\nq1,head\nq2,tail\nq3,tail\n")
    gates = ["snips[segment=tail]:at_least(floor=0.9)", "snips:at_least(floor=0.1)"]
    done = cli(*flags(files), "-e", "ips", "-e", "snips", "--min-ess", "2", "--min-n", "5",
               "--groups", str(files / "groups.csv"), "--correction", "holm", "--groups-in-family",
               *[a for g in gates for a in ("--gate", g)], "--format", "json")
    assert done.returncode == 1, done.stderr
    report = rankeval_rs.ope(
        files / "log.csv", {"prod": files / "prod.trec", "new": files / "new.trec"},
        estimators=["ips", "snips"], min_ess=2, min_n=5, groups=files / "groups.csv",
        correction="holm", groups_in_family=True, gates=gates,
    )
    assert json.loads(report.json) == json.loads(done.stdout)
    assert not report.passed
    failed = [g for g in report.gates if g["passed"] is False]
    assert failed and all(g["gate"] == gates[0] for g in failed)
    with pytest.raises(rankeval_rs.CompareError) as raised:
        rankeval_rs.ope(files / "log.csv", [files / "prod.trec"], gates=[gates[0]])
    assert str(raised.value) == (
        f"gate `{gates[0]}`: a gate on a group needs the groups of contexts: give groups=FILE")
    with pytest.raises(ValueError, match="groups_in_family=True: puts the groups' comparisons"):
        rankeval_rs.ope(files / "log.csv", [files / "prod.trec"], groups_in_family=True)


def test_record_is_the_command_lines_record(files: Path) -> None:
    # `record=` and `label=` fill the one request `--record` and `--label`
    # fill: the same record but for its time (and id).
    by_python, by_flags = files / "python.sqlite", files / "flags.sqlite"
    report = rankeval_rs.ope(
        files / "log.csv", {"prod": files / "prod.trec", "new": files / "new.trec"},
        estimators=["ips", "snips"], min_ess=5, record=by_python, label="nightly",
    )
    assert not report.refused
    done = cli("ope", "--log", str(files / "log.csv"), "--policy", f"prod={files / 'prod.trec'}",
               "--policy", f"new={files / 'new.trec'}", "-e", "ips", "-e", "snips",
               "--min-ess", "5", "--record", str(by_flags), "--label", "nightly")
    assert done.returncode == 0, done.stderr

    def records(db: Path) -> list[dict[str, Any]]:
        out = cli("history", "export", str(db), "--format", "jsonl")
        assert out.returncode == 0, out.stderr
        rows = [json.loads(line) for line in out.stdout.splitlines()]
        for row in rows:
            del row["time"], row["time_ms"]
        return rows

    python_records = records(by_python)
    assert [r["run"] for r in python_records] == ["prod", "new"]
    assert python_records == records(by_flags)
    assert python_records[1]["metrics"]["ope.snips"]["mean"] == report.estimates[3]["value"]
    with pytest.raises(ValueError, match="label=.*names a record: give record= too"):
        rankeval_rs.ope(files / "log.csv", files / "new.trec", label="x")


def test_the_click_example_finds_its_ground_truth(tmp_path: Path) -> None:
    """examples/ope/clicks.py (docs/ope.md, "A worked click example") run as
    the docs run it: every 95% interval covers the truth the script
    computes, and so does the paired difference's; the gate passes (exit
    0); Python's report is the command line's."""
    import subprocess
    import sys

    from conftest import ROOT

    subprocess.run([sys.executable, str(ROOT / "examples/ope/clicks.py"), str(tmp_path)],
                   check=True, capture_output=True)
    truth = {}
    for line in (tmp_path / "truth.txt").read_text().splitlines()[1:]:
        name, dcg, rbp = line.split()
        truth[(name, "ips_dcg@5")] = float(dcg)
        truth[(name, "ips_rbp(p=0.8)")] = float(rbp)
    estimators = ["ips_dcg@5", "ips_rbp(p=0.8)"]
    gate = "ips_dcg@5:non_inferior(margin=0.05)"
    done = cli("ope", "--log", str(tmp_path / "clicks.csv"), "--form", "examination",
               "--policy", f"prod={tmp_path / 'prod.trec'}", "--policy", f"new={tmp_path / 'new.trec'}",
               "-e", estimators[0], "-e", estimators[1], "--gate", gate, "--format", "json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["log"]["impressions"] == 4000 and document["log"]["slate_len"] == 8
    for policy in document["policies"]:
        for e in policy["estimates"]:
            low, high = e["interval"]["lower"], e["interval"]["upper"]
            assert low <= truth[(policy["name"], e["estimator"])] <= high, (policy["name"], e)
            assert not e["refusals"]
    for c in document["comparisons"]:
        true = truth[("new", c["estimator"])] - truth[("prod", c["estimator"])]
        assert c["paired"]["interval"]["lower"] <= true <= c["paired"]["interval"]["upper"], c
    assert [g["outcome"]["passed"] for g in document["gates"]] == [True]
    report = rankeval_rs.ope(tmp_path / "clicks.csv",
                             {"prod": tmp_path / "prod.trec", "new": tmp_path / "new.trec"},
                             form="examination", estimators=estimators, gates=[gate])
    assert json.loads(report.json) == document
    assert report.passed and not report.refused


def test_the_spark_drivers_functions_refuse_damaged_parts(tmp_path) -> None:
    """What `rankeval_rs.spark.ope`'s driver merges (states and exact sums
    sent by the tasks as bytes) is checked: cut, damaged or unknown parts
    are a ValueError, never a crash or a silent zero."""
    from rankeval_rs import _native

    for damaged in [b"", b"\x00", b"\xff" * 40, bytes(range(256))]:
        with pytest.raises(ValueError, match="not an exact sum"):
            _native.spark_ope_centres(["new"], ["ips"], [(None, None, "new", "ips", damaged)], [(None, None, 10)])
        with pytest.raises(ValueError, match="policy `prod`, ips"):
            _native.spark_ope_merge(["prod"], ["ips"], [(None, None, "prod", "ips", damaged)])
    with pytest.raises(ValueError, match="unknown policy `other`"):
        _native.spark_ope_centres(["new"], ["ips"], [(None, None, "other", "ips", b"")], [(None, None, 10)])
    with pytest.raises(ValueError, match="unknown estimator `snips`"):
        _native.spark_ope_merge(["prod"], ["ips"], [(None, None, "prod", "snips", b"")])
    # A group's parts are checked as the whole log's.
    with pytest.raises(ValueError, match="unknown policy `other`"):
        _native.spark_ope_centres(["new"], ["ips"], [("segment", "head", "other", "ips", b"")], [("segment", "head", 10)])
    with pytest.raises(ValueError, match="no state of policy `prod`, ips"):
        _native.spark_ope_merge(["prod"], ["ips"], [])
    with pytest.raises(ValueError, match="no state of policy `prod`, ips"):
        run = tmp_path / "prod.trec"
        run.write_text("c Q0 i 1 1.0 prod\n")
        _native.spark_ope_report([("prod", str(run))], {"estimators": ["ips"]}, [], [], [(None, None, 0)], [], 1)


# A keyword's value that the one spec (`rankeval::spec::resolve_ope`)
# refuses: `rankeval_rs.spark.ope` reads its keywords with the same code
# and checks them with the same spec (`resolve_ope_parts`) before it
# imports pyspark or touches the DataFrame, so each raises the same
# exception with the same words from both (no Spark session needed).
SAME_ERROR = [
    (dict(log_columns={"context": "user", "context ": "session"}), "`context` is given twice"),
    (dict(log_columns={"reward": "propensity"}), "`reward` and `propensity` both name the column `propensity`"),
    (dict(log_columns={"slate": "items"}), "unknown key `slate`"),
    (dict(correction="benjamini-hochberg"), "unknown correction"),
    (dict(correction="sidak"), "unknown correction"),
    (dict(level=1.5), "a level strictly between 0 and 1"),
    (dict(level=0.0), "a level strictly between 0 and 1"),
    (dict(min_ess=float("inf")), "a finite number of at least 0"),
    (dict(min_ess=-1.0), "a finite number of at least 0"),
    (dict(min_support=1.5), "a share of the target's mass, between 0 and 1"),
    (dict(min_n=-1), "a number of impressions, from 0 to 2^64 - 1"),
    (dict(reward_range=(float("nan"), 1.0)), "needs two numbers with LO <= HI"),
    (dict(reward_range=(1.0, 0.0)), "needs two numbers with LO <= HI"),
    (dict(reward_range=(1e400, 1e401)), "holds no finite reward"),
    (dict(samples=100), "only the Plackett-Luce marginals are drawn: give plackett_luce=TEMP"),
    (dict(samples=100, plackett_luce=0.5), "the log's propensities are of the form `action`"),
    (dict(samples=0, plackett_luce=0.5, form="marginal"), "draw 1 to"),
    (dict(samples=10**9, plackett_luce=0.5, form="marginal"), "draw 1 to"),
    (dict(seed=7), "only the bootstrap interval resamples"),
    (dict(resamples=100), "only the bootstrap interval resamples"),
    (dict(plackett_luce=0.0), "the temperature must be a positive number"),
    (dict(plackett_luce=float("nan")), "the temperature must be a positive number"),
    (dict(estimators=["nope"]), "nope"),
    (dict(estimators=["ips_dcg@5"]), "reads a click log"),
    (dict(form="bandit"), "unknown form of propensities"),
    (dict(interval="wald"), "unknown interval"),
    (dict(layout="rows"), "expected `auto`, `impression` or `position`"),
    (dict(reward_per="slate"), "expected `impression` or `position`"),
    (dict(examination="power(eta=-1)"), "eta is a finite number"),
    (dict(form="action", examination="power(eta=1)"), "a click log's"),
    (dict(form="examination", reward_per="impression"), "a click per position"),
    (dict(form="examination", plackett_luce=0.5), "a click log's target is a ranking"),
    (dict(target_column="logged"), "needs the log's column of target probabilities"),
    (dict(target_column="prod", log_columns={"target": "tp"}), "has that name already"),
    (dict(gates=["ips:nope(margin=1)"]), "gate `ips:nope(margin=1)`"),
    # Refused by the spec before the log is read (was found after reading
    # it, and on Spark by a check of the driver's own).
    (
        dict(estimators=["ips"], gates=["snips:at_least(floor=0.1)"]),
        "gate `snips:at_least(floor=0.1)`: snips is not among the estimators (ips): add it to them",
    ),
    (dict(gates=["snips:at_least(floor=0.1,run=nobody)"]), "no policy `nobody` to decide it on"),
    # Groups are estimated on Spark too: their rules are the spec's.
    (dict(groups_in_family=True), "puts the groups' comparisons in the whole log's families: give groups="),
    (dict(gates=["ips[segment=head]:at_least(floor=0.1)"]), "a gate on a group needs the groups of contexts: give groups=FILE"),
]


def raised(call: Any) -> BaseException:
    with pytest.raises(Exception) as caught:
        call()
    return caught.value


@pytest.mark.parametrize(("keywords", "words"), SAME_ERROR, ids=[repr(k) for k, _ in SAME_ERROR])
def test_spark_ope_refuses_a_value_as_ope_does(files: Path, keywords: dict[str, Any], words: str) -> None:
    from rankeval_rs import spark

    policies = {"prod": files / "prod.trec"}
    local = raised(lambda: rankeval_rs.ope(files / "log.csv", policies, **keywords))
    on_spark = raised(lambda: spark.ope(None, policies=policies, **keywords))  # type: ignore[arg-type]
    assert words in str(local), local
    assert (type(on_spark), str(on_spark)) == (type(local), str(local))


def test_spark_ope_refuses_missing_files_and_no_policy_as_ope_does(files: Path) -> None:
    from rankeval_rs import spark

    for policies, keywords in [
        ({"prod": files / "missing.trec"}, {}),
        ({"prod": files / "prod.trec"}, {"reward_model": files / "missing.trec"}),
        ({"a\tb": files / "prod.trec"}, {}),
        ({}, {}),
    ]:
        local = raised(lambda: rankeval_rs.ope(files / "log.csv", policies, **keywords))
        on_spark = raised(lambda: spark.ope(None, policies=policies, **keywords))  # type: ignore[arg-type]
        assert (type(on_spark), str(on_spark)) == (type(local), str(local))


@pytest.mark.parametrize(
    ("keywords", "words"),
    [
        (dict(interval="bootstrap"), 'interval="bootstrap": the bootstrap resamples the whole log\'s impressions'),
        (dict(record="history.sqlite"), "a record needs the fingerprint of the whole normalised log"),
        (dict(label="nightly"), "a record needs the fingerprint of the whole normalised log"),
    ],
)
def test_spark_ope_refuses_what_a_log_in_parts_cannot_give(files: Path, keywords: dict[str, Any], words: str) -> None:
    """What the spec refuses of a log read in parts (Spark's partitions),
    with the reason, before any job."""
    from rankeval_rs import spark

    with pytest.raises(ValueError) as caught:
        spark.ope(None, policies={"prod": files / "prod.trec"}, **keywords)  # type: ignore[arg-type]
    assert words in str(caught.value)
