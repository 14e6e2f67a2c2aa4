#!/usr/bin/env python3
"""bench/render.py — docs/BENCHMARKS.md and its plots from the committed results.

    python3 bench/render.py            # from the repository root

Each bench script writes its table into bench/csv/NAME.csv (bench/record.py): one row per
measured cell, then the columns command, commit, date, machine and load of the run that
measured it.  A rerun replaces the file, so it holds the latest number of each claim; the
history is git's.  This script renders every CSV listed in SECTIONS as a table (the audit's
as a summary: every row is in bench/audit/results.md) with the command that reproduces it,
and draws docs/img/*.png with matplotlib (Debian's
python3-matplotlib) from bench/csv/ and bench/figure1/results.csv (its run: meta.csv).
"""
import csv, json, os, re, statistics, sys
from collections import OrderedDict

META = ["command", "commit", "date", "machine", "load"]
DOC = "docs/BENCHMARKS.md"
IMG = "docs/img"

# (group heading, [(csv, title, what it measures)])
SECTIONS = [
 ("Accuracy", [
  ("imbalanced", "Imbalanced labels: class weights",
   "Synthetic table (13.7 % positives, d = 15) and Adult (`adult.features_d23`, 24.1 %), "
   "δ = 10⁻⁶; the negative rows' weight p/(1 − p) (0.16, 0.32) or 0.3 (else `\"metric\": "
   "\"accuracy\"`); ε = 1 and the non-private fit here, every ε in the plot and the CSV."),
  ("imbalanced_peer", "Imbalanced labels: diffprivlib and scikit-learn on the same rows",
   "IBM diffprivlib 0.6.6's LogisticRegression (ignores class weights), 10 draws; scikit-learn "
   "non-private, without and with class_weight=\"balanced\"."),
  ("auto", "Private model selection (`auto`) on Adult",
   "Adult training split (32 561 rows, d = 23), ε = 1, δ = 10⁻⁹; adult.test accuracy "
   "(majority 0.764); `auto`'s defaults with `\"metric\": \"accuracy\"` (what it measures): "
   "objective and noisysgd, share 0.05."),
  ("auto_imbalanced", "Imbalanced labels: `auto` against the best single mechanism",
   "Mean balanced accuracy (sd), 20 seeds, ε = 1."),
  ("ebm", "Additive boosting (`ebm`) against the linear mechanisms and `auto`",
   "Median balanced test accuracy and ebm's ROC AUC, δ = 10⁻⁶, public class weights; ebm: private "
   "bins (default), uniform: equal-width; LR, GB non-private; the tables: bench/ebm/results.md; "
   "ε = 0.5 in the CSV."),
  ("gbdt", "Boosted trees (`gbdt`) against `ebm` and `auto`",
   "Median balanced accuracy / AUC, ε = 1, δ = 10⁻⁶, defaults, train()'s encoding; "
   "auto_gbdt: auto with gbdt a candidate (bench/gbdt/results.md)."),
  ("operating", "Operating point: the default cut-off against `\"metric\": \"accuracy\"`",
   "Medians over 20 seeds, δ = 10⁻⁶, no class weights; test balanced accuracy and recall at "
   "the model's cut-off, exact test ROC AUC; the tables "
   "and every arm: bench/operating/results.md, the CSV."),
  ("operating_auc", "Operating point: `evaluate()`'s private ROC AUC and its 95 % interval",
   "The default ebm models at ε = 1 above, evaluated on their test splits at ε = 1 (half on "
   "the score histograms; ε = 0.5 in the CSV)."),
  ("tune", "Private hyperparameter tuning: noisy GD's `\"tune\"`",
   "ε = 1, δ = 10⁻⁶, 20 seeds."),
  ("noisysgd_clip", "Noisy GD's gradient clip and AdaGrad prior",
   "Balanced accuracy with class weights (bacc_w) and accuracy without, ε = 0.5 / 1 / 2, 30 seeds. "
   "Defaults with class weights: c = 0.25, m = 64; unweighted runs keep c = 1, m = 0."),
  ("privbounds", "Private norm bound: declared R against `\"R\": \"private\"` (Adult, ε = 1)",
   "Test accuracy, mean (min–max) over 20 seeds."),
  ("units", "Privacy units: row level, k rows per unit, averaging (Adult, ε = 1)",
   "5 964 units of 1..10 rows; adult.test accuracy (majority 0.764), 11 draws."),
  ("units_cost", "Privacy units: what the bounding costs",
   "`train()` (output, ε = 1), 1M rows, k = 10, 7 runs; ratio to row level in the same run."),
  ("grid", "OPDisc's default grid: against the paper's",
   "Adult balanced subset, 11 draws; each cell: test accuracy, median (min–max) / training "
   "accuracy / median s (max)."),
  ("multiclass", "Multi-class: 5 classes, chance 0.2",
   "Synthetic clusters, d = 4, 10 000 train / 2 000 test rows, δ = 10⁻⁶; mean (min–max) test accuracy over the draws (REPS)."),
  ("linreg", "Linear regression: in-sample R²",
   "100 000 synthetic rows, d = 10, 5 draws; non-private R² = 0.9161."),
  ("passglm", "One-pass logistic regression (passglm)", "Mean test accuracy (min–max)."),
  ("synth", "Synthetic copies: the synthesizer's core (bench/synth)",
   "Medians, δ = 10⁻⁶, target as \"label\"; mean ℓ1 error over all 2-, 3-way marginals; bacc: "
   "boosting trained on synthetic, tested on real (on real: Adult 0.776, bank 0.661)."),
  ("synth_values", "Synthetic copies: what `synthesize()`'s twin holds (bench/synth/values.sh)",
   "SQL path with the defaults, ε = 1, δ = 10⁻⁶, medians of the runs (means in CI: all runs); "
   "the columns: bench/synth/values.md."),
  ("synth_aim", "Synthetic copies: `synthesize()` against the authors' AIM (bench/synth/aim.sh)",
   "ε = 1, δ = 10⁻⁶, medians; the arms, AIM's settings, the scorer's cut: bench/synth/aim.sh; "
   "TV: total variation over every pair and triple."),
  ("synth_boost", "Synthetic copies: a booster on the twin (bench/synth/boost.sh)",
   "scikit-learn's booster (defaults) on the training rows' twins, ε = 1, δ = 10⁻⁶; "
   "test balanced accuracy, medians; real: raw / at deciles (AIM's cut); train 'auto': "
   "dpobj's model (bench/synth/boost.md)."),
  ("aggregate_coverage", "Private statistics: 95 % intervals and noise (Adult)",
   "Fresh noise per run, ε = 1 (a third per statistic)."),
  ("aggregate_quantile_intervals", "Private statistics: describe()'s quartiles (50 000 rows, ε = 0.25)",
   "11 statistics share ε; age on [18, 80]: uniform, no rows in (30, 50), or whole years. Width: of the "
   "range; ranks / 2 reach: rows inside over twice aggregate_accuracy()'s reach."),
  ("aggregate_quantiles", "Private statistics: quantiles and variance (Adult age)",
   "ε = 1, half each. Rank error p95 of the estimate; ours: aggregate_accuracy()'s reach; OpenDP: "
   "`make_private_quantile` at a third of the half per q, 2·max(q, 1 − q)/ε_q·ln(1000/0.05)."),
  ("sql_coverage", "Private SQL queries: 95 % intervals (dpobj.query())",
   "Fresh noise per run, ε = 1 a query (a third per aggregate); x = 100·u² in [0, 100]."),
  ("sql_join_accuracy", "Private SQL joins along foreign keys: revenue by segment",
   "bench/sql/join_accuracy.sh: lines ⋈ orders ⋈ customers, 25 segments of 600 customers (16 lines "
   "each, k = 16), ε = 1 a query (a third per aggregate); errors over every group and run."),
 ]),
 ("Time and memory", [
  ("scale", "Scale: time and peak memory against rows",
   "One `train()` per cell, ε = 1, δ = 10⁻⁶, serial; the shapes (d10: rows all distinct; d50: "
   "one-hot) and the scan: bench/scale/run.sh. Each cell: ms / ratio to the scan / peak RSS MB "
   "(VmHWM, shared buffers included; the outcome if not ok)."),
  ("scale_20m", "Every mechanism at 5M and 20M rows (quiet machine)",
   "d = 10; ratio to the scan (660 ms at 5M, 2 483 ms at 20M); cap 256MB."),
  ("ebm_scale", "`ebm` (20 rounds) at 1M, 10M and 20M rows",
   "d = 10; cells as in the scale table."),
  ("gbdt_scale", "`gbdt` and `ebm` on large tables",
   "bench/gbdt/scale.md; one table scan a run; ms / ratio / passes a "
   "tree or round / peak RSS / private MB."),
  ("synth_sqlpath", "`synthesize()` on Adult and ×615 (20M rows)",
   "Domains and phases (whole s): bench/synth/sqlpath.sh; ε = 1, δ = 10⁻⁶; medians; "
   "scan: 15 counts, same run; ×615 writes 32 561 rows; cap 256MB."),
  ("synth_write", "Writing a synthetic twin: `sample_into()` against INSERT and COPY",
   "bench/synth/write.md: Adult's 15 columns drawn into a typed table; ratio: ms per row over "
   "`INSERT ... SELECT`'s; synthesize: scan, rounds and write."),
  ("aggregate_scale", "Private statistics: one scan of 20M rows, 10 columns, 2 workers",
   "Best of 3; plain SQL: aggregate's GROUP BY, describe's scan; peak RSS as in the scale table."),
  ("sql_speed", "Private SQL queries against the same plain queries",
   "Best of 3, 2 workers, ε = 1; tu: the rows with a unit (1M units, k = 16); the join's "
   "unit: via foreign keys (k = 40)."),
  ("throughput", "Transition throughput (Adult ×30, 976 830 rows)", ""),
  ("statesize", "OPDisc state size (distinct quantised feature vectors)", ""),
  ("logistic", "dp_logistic on Adult: one run against diffprivlib's fit",
   "Median ms per run (diffprivlib's time over dpobj's); the two scans: the floor."),
  ("parallel", "Parallel aggregation: 10M rows, `dp_halfspace`", ""),
  ("parallel_train", "The protected path in parallel workers: 5M rows, d = 10", "Wall ms; two rounds."),
  ("citus", "Citus: local vs distributed (`dp_halfspace`)", "10M rows (the CSV also holds 1M)."),
  ("opsamp", "OPSamp within the cap",
   "1M rows, d = 10, default cap 256MB: the LPs run on the public K-row sample."),
  ("citus_train", "Citus: protected `train()` (opdisc, 10M rows)", ""),
 ]),
 ("Exact oracles", [
  ("solve", "Solve time on the paper instance (Adult, n = 15 682)",
   "ε = 1, δ = 1/n², seeds 1–3; not certified: the 60 s limit ran out (DP001)."),
  ("oracle_ladder", "Exact oracle beyond d = 23", "Median seconds where every draw certified, else certified / draws."),
 ]),
 ("Accounting and operations", [
  ("runs_admitted", "zCDP accountant: runs a (1, 10⁻⁶) budget admits at (ε, δ) = (0.1, 10⁻⁷)",
   "Train until DP004 (budget exhausted), each mix on a budget of its own; basic composition "
   "would admit 10 of any mechanism."),
  ("ledger_rate", "Runs per second (ledger)", "pgbench, 15 s per cell; runs/s (mean latency ms)."),
  ("deadline", "Release deadline: exponential mechanism", "Two 20 000-row tables: big (about 8 000 distinct rows), small (one)."),
  ("audit", "Empirical privacy audit (`tests/audit`, `bench/audit`)",
   "A mutant build has one calibration f times too weak (docs/PRIVACY.md, \"Empirical audit\")."),
 ]),
]

PLOTS = [
 ("accuracy_eps.png", "Accuracy against ε: mechanisms on Adult; class weights vs diffprivlib"),
 ("scale.png", "Time (ratio to the scan) and peak memory against rows"),
 ("runs_admitted.png", "Runs a budget admits per mechanism mix"),
 ("describe_adult.png", "describe() of Adult's age at ε = 1 against the true histogram"),
 ("ebm_shapes.png", "Additive model shapes on Adult (dpobj.explain, ε = 1; bench/ebm/shapes.sh)"),
 ("synth_fidelity.png", "synth_fidelity() of a twin: each measurement's distance over its noise (bench/synth/widefit.sh)"),
]
# CSVs drawn, not tabled
PLOTTED = {"ebm_shapes"}


def read(name):
    with open(f"bench/csv/{name}.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


# rows a section shows (the CSV keeps every row)
SHOW = {"citus": lambda r: r.get("n") == "10000000",
        "units_cost": lambda r: r.get("work_mem") == "4MB",
        "imbalanced": lambda r: r.get("ε") in ("1", "—"),
        "operating": lambda r: r.get("table") == "adult23" or r.get("arm") == "ebm"
                               or (r.get("table"), r.get("arm")) == ("adult12", "auto"),
        "operating_auc": lambda r: r.get("evaluate() at ε") == "1",
        "auto": lambda r: "cms" not in r.get("arm (15 draws)", ""),
        "ebm": lambda r: r.get("ε") == "1",
        "synth_values": lambda r: r.get("build", "").startswith("this branch"),
        "synth": lambda r: r.get("ε") == "1",
        "synth_aim": lambda r: "rounds" not in r.get("method", "")}
# columns a section leaves out (the CSV keeps them)
HIDE = {"citus_train": {"runs s", "rows/s", "speed vs local"}, "opsamp": {"rows"},
        "synth_values": {"build", "runs"}, "synth_boost": {"runs"},
        "synth_aim": {"2-way: dpobj / it", "3-way: dpobj / it"},
        "ebm_scale": {"shape"}, "synth_sqlpath": {"synthetic rows"}, "operating": {"accuracy ε 1"}}
# sections whose rows per seed are shown one per cell (the CSV keeps every seed)
def seeds_per_cell(rows):
    cells = OrderedDict()
    for r in rows:
        cells.setdefault((r["feature set"], r["oracle"]), []).append(r)
    out = []
    for (fs, oracle), rs in cells.items():
        out.append(OrderedDict([("feature set", fs), ("oracle", oracle),
                                ("seconds, seed " + " / ".join(r["seed"] for r in rs),
                                 " / ".join(r["seconds"] for r in rs)),
                                ("certified", f'{sum(r["certified"] == "yes" for r in rs)}/{len(rs)}')]
                               + [(m, rs[0][m]) for m in META]))
    return out


# the ledger's rates: a row per case, a column per (dpobj loaded, clients)
def rates_per_case(rows):
    cases = OrderedDict()
    for r in rows:
        c = cases.setdefault(r["case"], OrderedDict([("case", r["case"])]))
        c[f'{r["dpobj"]}, {r["clients"]} client' + ("s" if r["clients"] != "1" else "")] = f'{r["runs/s"]} ({r["mean latency ms"]})'
        c.update((m, r[m]) for m in META)
    return list(cases.values())


# the oracle ladder: a row per feature set, a column per mechanism, its cells per ε
def ladder_per_set(rows):
    names = {"opdisc": "OPDisc", "rspm": "RSPM"}
    sets = OrderedDict()
    for r in rows:
        cell = r["certified"]
        n, m = cell.split("/")
        if n == m:
            cell = f'{float(r["median s"]):.2g}'
        row = sets.setdefault(r["set"], OrderedDict([("set", r["set"])]))
        key = names.get(r["mech"], r["mech"])
        row.setdefault(key, []).append((r["eps"], cell))
        row.update((mm, r[mm]) for mm in META)
    out = []
    for row in sets.values():
        new = OrderedDict()
        for k, v in row.items():
            if isinstance(v, list):
                new[f"{k} ε = " + " / ".join(e for e, _ in v)] = ", ".join(c for _, c in v)
            else:
                new[k] = v
        out.append(new)
    return out


# the scale table: a row per (rows, shape), a column per run, its cell "ms / ratio / peak MB"
def scale_per_size(rows):
    out = OrderedDict()
    for r in rows:
        row = out.setdefault((r["rows"], r["shape"]), OrderedDict([("rows", r["rows"]), ("shape", r["shape"])]))
        cell = f'{r["ms"]} / {r["ratio"]} / {r["peak RSS MB"]}'
        row[r["run"]] = cell if r["outcome"] == "ok" else f'{cell} ({r["outcome"]})'
        row.update((m, r[m]) for m in META)
    return list(out.values())


# gbdt_scale: a row per table, per mechanism "ms / ratio to the scan / passes a tree or
# round / peak RSS / peak private MB" (the outcome if not ok)
def gbdt_scale_per_table(rows):
    out = OrderedDict()
    for r in rows:
        row = out.setdefault(r["table"], OrderedDict([("table", r["table"])]))
        if r["run"] != "scan":
            cell = (f'{r["ms"]} / {r["ratio"]} / {r["passes a tree or round"].removesuffix(".00")} / {r["peak RSS MB"]} '
                    f'/ {r["peak private MB"]}')
            row[r["run"]] = cell if r["outcome"] == "ok" else f'{cell} ({r["outcome"]})'
        row.update((m, r[m]) for m in META)
    return list(out.values())


# passglm: a row per model, a column per ε, its cell "mean (min–max)"
def passglm_per_model(rows):
    out = OrderedDict()
    for r in rows:
        row = out.setdefault(r["model"], OrderedDict([("model", r["model"])]))
        row["ε = " + r["ε"]] = f'{r["mean test accuracy"]} ({r["min–max"]})'
        row.update((m, r[m]) for m in META)
    return list(out.values())


# multiclass: a row per method, a column per ε, its cell "mean (min–max)"; a cell with fewer
# released models than the most any private cell released says how many
def multiclass_per_method(rows):
    out = OrderedDict()
    most = max((int(r["released"]) for r in rows if r["method"] != "nonprivate"), default=0)
    for r in rows:
        row = out.setdefault(r["method"], OrderedDict([("method", r["method"])]))
        private = r["method"] != "nonprivate"
        key = "ε = " + r["epsilon"] if private else "non-private"
        cell = r["mean_accuracy"] if r["min"] == r["max"] else f'{r["mean_accuracy"]} ({r["min"]}–{r["max"]})'
        row[key] = cell + (f' ({r["released"]} released)' if private and int(r["released"]) < most else "")
        row.update((m, r[m]) for m in META)
    cols = list(OrderedDict.fromkeys(k for row in out.values() for k in row if k not in META))
    return [OrderedDict([(c, row.get(c, "")) for c in cols] + [(m, row[m]) for m in META]) for row in out.values()]


# grid: a row per (set, grid), a column per ε, its cell "test / training / seconds"
def grid_per_set(rows):
    out = OrderedDict()
    for r in rows:
        row = out.setdefault((r["set"], r["grid (B / D2)"]),
                             OrderedDict([("set", r["set"]), ("grid (B / D2)", r["grid (B / D2)"])]))
        row["ε = " + r["ε"]] = f'{r["test accuracy"]} / {r["training accuracy"]} / {r["median s (max)"]}'
        row.update((m, r[m]) for m in META)
    return list(out.values())


# a row per value of the key columns, a column per value of col (named by name(value)), its
# cell cell(row); cells a row lacks are "—"
def by_column(rows, keys, col, name, cell):
    out = OrderedDict()
    for r in rows:
        row = out.setdefault(tuple(r[k] for k in keys), OrderedDict((k, r[k]) for k in keys))
        row[name(r[col])] = cell(r)
        row.update((m, r[m]) for m in META)
    cols = list(OrderedDict.fromkeys(k for row in out.values() for k in row if k not in META))
    return [OrderedDict([(c, row.get(c, "—")) for c in cols] + [(m, row[m]) for m in META])
            for row in out.values()]


# the bounding's cost: a row per table, a column per cap
def units_cost_per_table(rows):
    return by_column(rows, ["work_mem", "table"], "cap", lambda v: f"cap {v}: median ms (ratio), VmHWM MB",
                     lambda r: f'{r["median ms"]} ({r["ratio to row level"]}), {r["VmHWM MB"]}')


# throughput: a row per query, a column per feature set (the rows: the title)
def throughput_per_query(rows):
    return by_column(outcome_code(rows), ["query"], "feature set",
                     lambda v: f"{v}: median s (x the feature sum)",
                     lambda r: f'{r["median s"]} ({r["x sum(cardinality) time"]})'
                               + ("" if r["outcome"] == "ok" else f'; {r["outcome"]}'))


# parallel, Citus: a row per configuration, a column per query; a query's result is named in
# its column when every configuration released the same, else in each cell
def per_query(key, cell):
    def pivot(rows):
        same = {q: len({r["result"] for r in rows if r["query"] == q}) == 1 for q in (r["query"] for r in rows)}
        results = {r["query"]: r["result"] for r in rows}
        return by_column(rows, [key], "query",
                         lambda q: f"{q}{f' ({results[q]})' if same[q] else ''}: {cell[0]}",
                         lambda r: cell[1](r) + ("" if same[r["query"]] else f', {r["result"]}'))
    return pivot


# gbdt: a row per table, a column per arm, its cell "balanced accuracy / AUC"
def gbdt_per_table(rows):
    return by_column(rows, ["tbl"], "arm", str, lambda r: f'{r["balanced_accuracy"]} / {r["auc"]}')


# the peers on the imbalanced tables: a row per (model, ε), a column per table
def peer_per_model(rows):
    return by_column(rows, ["model", "ε"], "table", lambda t: f"{t}: accuracy, balanced (sd)",
                     lambda r: f'{r["accuracy"]}, {r["balanced accuracy (sd)"]}')


# columns "X: a", "X: b" ... as one column "X: a / b / ..." (the scale table's cells)
def merge_prefixed(rows):
    out = []
    for r in rows:
        row = OrderedDict()
        for k, v in r.items():
            pre, _, name = k.partition(": ")
            if k in META or not name:
                row[k] = v
                continue
            old = next((c for c in row if c.startswith(pre + ": ")), None)
            if old is None:
                row[k] = v
            else:
                row[old + " / " + name] = row.pop(old) + " / " + v
        out.append(row)
    return out


# the synthesizer: a row per table, a column per ε
def synth_per_table(rows):
    return by_column(rows, ["table", "seeds"], "ε", lambda e: f"ε = {e}: err2 / err3 / bacc",
                     lambda r: f'{r["err2"]} / {r["err3"]} / {r["bacc"]}')


# the deadline: a row per table, a column per setting ("big, no deadline": table, setting);
# the spread is max - min
def deadline_per_table(rows):
    rows = [OrderedDict(list(r.items()) + [("table", r["run"].split(", ")[0]),
                                           ("setting", r["run"].split(", ", 1)[1])]) for r in rows]
    return by_column(rows, ["table", "n"], "setting", lambda v: f"{v}: median (min–max) ms, CPU ms",
                     lambda r: f'{r["median ms"]} ({r["min ms"]}–{r["max ms"]}), {r["CPU ms per run"]}')


# imbalanced: a row per model, a column per table; a class weight only one table uses is that
# table's p/(1 − p) (the section's note names them)
def imbalanced_per_model(rows):
    weights = {}
    for r in rows:
        weights.setdefault(r["table"], set()).update(re.findall(r"class_weight ([0-9.]+)", r["model"]))
    common = set.intersection(*weights.values()) if weights else set()
    rows = [OrderedDict(list(r.items()) + [("model", re.sub(
                r"class_weight ([0-9.]+)", lambda m: m.group(0) if m.group(1) in common
                else "class_weight p/(1 − p)", r["model"]))]) for r in rows]
    return by_column(rows, ["model"], "table", lambda t: f"{t}: accuracy, balanced (sd)",
                     lambda r: f'{r["accuracy"]}, {r["balanced accuracy (sd)"]}')


# logistic: a row per method, then diffprivlib's fit, a column per ε, its cell "dpobj median
# ms (diffprivlib / dpobj)"; the scans' floors in their first cell
def logistic_per_method(rows):
    out, peer = OrderedDict(), OrderedDict([("method", "diffprivlib")])
    for r in rows:
        if r["ε"] == "—":
            row = out.setdefault(r["method"], OrderedDict([("method", f'{r["method"]}: {r["dpobj median ms"]} ms')]))
        else:
            row = out.setdefault(r["method"], OrderedDict([("method", r["method"])]))
            row["ε = " + r["ε"]] = f'{r["dpobj median ms"]} ({r["diffprivlib / dpobj"]})'
            peer["ε = " + r["ε"]] = r["diffprivlib ms"]
            peer.update((m, r[m]) for m in META)
        row.update((m, r[m]) for m in META)
    out["diffprivlib"] = peer
    cols = list(OrderedDict.fromkeys(k for row in out.values() for k in row if k not in META))
    return [OrderedDict([(c, row.get(c, "—")) for c in cols] + [(m, row[m]) for m in META])
            for row in out.values()]


# throughput: an error's code, not its text (DP001: not certified within the limit)
def outcome_code(rows):
    return [OrderedDict((k, re.sub(r"(DP[0-9]{3}): .*", r"\1 (not certified)" if "DP001" in v else r"\1", v)
                         if k == "outcome" else v) for k, v in r.items()) for r in rows]


# audit: the bounds' names are the claim's; only the rows that carry mutants
def audit_bounds(rows):
    # the bench's 1.1x column when it was run, else CI's 1.25x (a record of CI's runs)
    bench = any(r.get("1.1× (bench runs)", "—") != "—" for r in rows)
    drop = "1.25× (CI runs)" if bench else "1.1× (bench runs)"
    kept = [r for r in rows if not bench or r.get("1.1× (bench runs)", "—") != "—"]
    return [OrderedDict((k, re.sub(r"(μ|ε|γ|p|r|sd|b)_(lb|ub) ", "", v)) for k, v in r.items()
                        if k != drop) for r in kept]


# audit: a summary of the rows that carry mutants (every row's bounds: bench/audit/results.md,
# which the same run writes); each bound is a lower one (within: <= the claim) but sd_ub's
def audit_summary(rows, title):
    rows = audit_bounds(rows)
    mut = next(c for c in rows[0] if c.endswith("runs)") and c != "runs CI/bench")

    def value(cell):
        m = re.search(r"(-?[0-9.]+)\s*$", cell)
        return float(m.group(1)) if m else None

    real, mutants, bad_real, bad_mut = [], [], [], []
    for r in rows:
        claim, bound, upper = value(r["claim"]), value(r["real build"]), r["claim"].startswith("sd ")
        ratio = (lambda v: claim / v if upper else v / claim) if claim else None
        if ratio is None or bound is None or ratio(bound) > 1:
            bad_real.append(r["row"])
        else:
            real.append((ratio(bound), r["row"]))
        for cell in r[mut].split(";"):
            v = value(cell) if ratio and "NOT" not in cell and "?" not in cell else None
            if v is None or ratio(v) <= 1:
                bad_mut.append(r["row"])
            else:
                mutants.append((ratio(v), r["row"]))
    real_text = ("within its claim in every row (the closest at %.3f of it, %s)" % max(real)
                 if not bad_real else "NOT within its claim in " + ", ".join(bad_real))
    mut_text = ("crosses it (the closest at %.3f, %s)" % min(mutants)
                if not bad_mut else "does NOT cross it in " + ", ".join(sorted(set(bad_mut))))
    text = (f"{len(rows)} rows carry mutants: the real build's bound is {real_text}; every "
            f"{mut.split()[0]} mutant's {mut_text}. Every row's bounds, every build: "
            "bench/audit/results.md.")
    return "\n".join([text] + run_lines(rows, title))


# sections shown as a summary of their CSV (with the runs' lines), not a table
SUMMARY = {"audit": audit_summary}
PIVOT = {"parallel": per_query("parallel workers", ("s, leader / worker RSS",
                                lambda r: f'{r["median s"]}, {r["leader peak RSS"]} / {r["worker peak RSS"]}')),
         "citus": per_query("configuration", ("s, coordinator RSS, loopback bytes",
                            lambda r: f'{r["median s"]}, {r["coordinator peak RSS"]}, {r["loopback bytes"]}')),
         "throughput": throughput_per_query, "units_cost": units_cost_per_table, "grid": grid_per_set, "multiclass": multiclass_per_method, "logistic": logistic_per_method, "imbalanced": imbalanced_per_model, "synth": synth_per_table, "deadline": deadline_per_table, "imbalanced_peer": peer_per_model, "scale": scale_per_size, "scale_20m": merge_prefixed, "ebm_scale": scale_per_size, "gbdt_scale": gbdt_scale_per_table, "gbdt": gbdt_per_table, "passglm": passglm_per_model, "solve": seeds_per_cell, "ledger_rate": rates_per_case, "oracle_ladder": ladder_per_set}
# the machine most runs had, named once at the top instead of under every table
MACHINE = "2 CPUs, AMD EPYC"


# runs already named under an earlier table: (command, commit, date, machine) -> its title
SEEN = {}


def table(rows, hide=(), title=""):
    cols = [c for c in rows[0] if c not in META and c not in hide]
    # a column with one value in every row (of 4 or more) is stated once above the table
    same = [c for c in cols if len(rows) >= 4 and len({r[c] for r in rows}) == 1 and rows[0][c]]
    cols = [c for c in cols if c not in same]
    out = ["Every row: " + ", ".join(f"{c} {rows[0][c]}" for c in same) + ".", ""] if same else []
    # runs of one command: the command once
    out += ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    out += ["| " + " | ".join(r[c].replace("|", "/") for c in cols) + " |" for r in rows]
    return "\n".join(out + run_lines(rows, title))


def run_lines(rows, title):
    """the lines naming the runs of rows: a command once, its runs after it"""
    out = []
    runs = OrderedDict()
    for r in rows:
        runs.setdefault(tuple(r[m] for m in META[:4]), []).append(r["load"])
    lines = OrderedDict()
    for run, loads in runs.items():
        line = run_line(*run, " / ".join(OrderedDict.fromkeys(loads)), title)
        cmd = f"`{run[0]}` — "
        if line.startswith(cmd) and cmd in lines:
            lines[cmd] += "; " + line[len(cmd):]
        else:
            lines[cmd if line.startswith(cmd) else line] = line
    for line in lines.values():
        out += ["", line]
    return out


def run_line(cmd, commit, date, machine, load, title=""):
    where = "" if machine.startswith(MACHINE) else ", " + re.sub(r"^2 CPUs, |\(R\)| Processor", "", machine)
    key = (cmd, commit, date, machine)
    if key in SEEN:
        first, same = SEEN[key]
        return f'The run of "{first}"' + ("." if load == same else f", load {load}.")
    SEEN.setdefault(key, (re.split(r":| \(", title)[0], load))
    return f"`{cmd}` — {commit}, {date.replace(' UTC', '')}{where}, load {load}"


def num(s):
    m = re.match(r"\s*(-?[0-9.]+)", s.replace(" ", ""))
    return float(m.group(1)) if m else None


def plot_accuracy(plt):
    fig, ax = plt.subplots(1, 3, figsize=(15, 4.3))
    # (a) every mechanism, Adult balanced subset (bench/figure1/results.csv: one row per run)
    runs = list(csv.DictReader(open("bench/figure1/results.csv")))
    for mech, label in [("opdisc", "OPDisc"), ("rspm", "RSPM"), ("logistic", "objective (LR)"),
                        ("noisysgd", "noisy GD (T = 30)")]:
        eps = sorted({float(r["epsilon"]) for r in runs if r["mechanism"] == mech and r["ok"] == "t"
                      and float(r["epsilon"]) <= 1})
        mean = [statistics.mean(float(r["test_acc"]) for r in runs if r["mechanism"] == mech
                                and r["ok"] == "t" and float(r["epsilon"]) == e) for e in eps]
        ax[0].plot(eps, mean, marker="o", label=label)
    ax[0].axhline(0.764, ls=":", c="grey", label="majority class")
    ax[0].set(xscale="log", xlabel="ε", ylabel="adult.test accuracy (mean of 15)",
              title="Adult, balanced training subset (n = 15 682), d = 23")
    ax[0].legend(fontsize=8)
    # (b, c) the imbalanced tables: balanced accuracy, dpobj's arms and diffprivlib
    rows = read("imbalanced") + read("imbalanced_peer")
    for k, tbl in enumerate(["adult23", "synth"]):
        series = {}
        for r in rows:
            if r["table"] != tbl or r["ε"] in ("—", ""):
                continue
            models = [m.strip() for m in r["model"].split(" / ")]
            vals = [num(v) for v in r["balanced accuracy (sd)"].split(" / ")]
            if len(models) == 2 and len(vals) == 2:
                base = models[0]
                models = [base, base + ", " + models[1]]
            for m, v in zip(models, vals):
                series.setdefault(m, []).append((float(r["ε"]), v))
        a = ax[k + 1]
        for m, pts in sorted(series.items()):
            pts.sort()
            style = dict(ls="--", c="black") if "diffprivlib" in m else {}
            a.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=m, **style)
        a.set(xscale="log", xlabel="ε", ylabel="balanced accuracy (mean over the draws)",
              title={"adult23": "Adult, full split (24 % positives)",
                     "synth": "Synthetic (13.7 % positives)"}[tbl])
        a.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(f"{IMG}/accuracy_eps.png", dpi=80)


def plot_scale(plt):
    rows = read("scale")
    fig, ax = plt.subplots(1, 2, figsize=(12, 4.3))
    runs = sorted({r["run"] for r in rows if r["run"] != "scan"})
    colour = {run: f"C{i % 10}" for i, run in enumerate(runs)}     # one colour per mechanism
    for shape, ls in [("d10", "-"), ("d50", "--")]:
        for run in runs:
            pts = sorted((int(r["rows"]), num(r["ratio"]), num(r["peak RSS MB"])) for r in rows
                         if r["shape"] == shape and r["run"] == run and r["outcome"] == "ok")
            if not pts:
                continue
            x = [p[0] for p in pts]
            ax[0].plot(x, [p[1] for p in pts], ls=ls, marker="o", c=colour[run],
                       label=f"{run} {shape}")
            ax[1].plot(x, [p[2] for p in pts], ls=ls, marker="o", c=colour[run])
    ax[0].set(xscale="log", yscale="log", xlabel="rows", ylabel="time / scan time",
              title="train() time as a multiple of the scan (d10 solid, d50 dashed)")
    ax[1].set(xscale="log", xlabel="rows", ylabel="backend peak RSS, MB",
              title="peak memory (cap dpobj.max_state_memory = 256MB)")
    ax[0].legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(f"{IMG}/scale.png", dpi=80)


def plot_runs(plt):
    rows = read("runs_admitted")
    fig, ax = plt.subplots(figsize=(8, 3))
    names = [r["mix"] for r in rows]
    vals = [int(r["runs admitted"]) for r in rows]
    ax.barh(names, vals, color=["tab:grey" if "reference" in n else "tab:blue" for n in names])
    for i, v in enumerate(vals):
        ax.text(v + 1, i, str(v), va="center")
    ax.invert_yaxis()
    ax.set(xlabel="runs admitted", title="budget (ε, δ) = (1, 10⁻⁶), each run (0.1, 10⁻⁷)")
    fig.tight_layout()
    fig.savefig(f"{IMG}/runs_admitted.png", dpi=80)


def plot_describe(plt):
    """bench/aggregate/quantiles.sh's describe() of age: noisy bins with 95 % intervals"""
    rows = [r for r in csv.DictReader(open("bench/aggregate/describe_adult.csv")) if r["statistic"] == "histogram"]
    x = [float(json.loads(r["bin"])[0]) for r in rows]
    w = x[1] - x[0]
    est = [float(r["estimate"]) for r in rows]
    err = [[e - float(r["ci_low"]) for e, r in zip(est, rows)], [float(r["ci_high"]) - e for e, r in zip(est, rows)]]
    fig, ax = plt.subplots(figsize=(6, 2.6))
    ax.bar(x, [int(r["truth"]) for r in rows], width=w, align="edge", color="tab:grey", label="true")
    ax.errorbar([v + w / 2 for v in x], est, yerr=err, fmt=".", color="tab:red", label="describe(), 95 %")
    ax.set(xlabel="age", ylabel="rows", title="Adult age: describe() at ε = 1 (20 bins)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(f"{IMG}/describe_adult.png", dpi=80)


def plot_fidelity(plt):
    """bench/synth/widefit.sh's dpobj.synth_fidelity() rows, in release order"""
    rows = list(csv.DictReader(open("bench/synth/widefit_fidelity.csv")))
    single = [len(r["columns"].split()) == 1 for r in rows]
    fig, ax = plt.subplots(figsize=(6, 2.4))
    for one, colour, label in ((True, "tab:blue", "one column"), (False, "tab:red", "two or more")):
        pts = [(i, float(r["ratio"])) for i, r in enumerate(rows) if single[i] == one]
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=12, color=colour, label=label)
    ax.axhline(1, color="grey", linestyle="--", linewidth=1)
    ax.set(xlabel="measurement, in release order", ylabel="distance / expected noise", ylim=(0, None),
           title="synth_fidelity() of a twin (wide-level table, ε = 1)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(f"{IMG}/synth_fidelity.png", dpi=80)


def plot_shapes(plt):
    """each term of the additive model: a numeric's curve over its bins, a categorical's bars"""
    rows = read("ebm_shapes")
    bias = [r for r in rows if r["feature"] == "(intercept)"]
    rows = [r for r in rows if r not in bias]
    feats = list(OrderedDict.fromkeys(r["feature"] for r in rows))
    fig, ax = plt.subplots(3, (len(feats) + 2) // 3, figsize=(16, 8))
    for a, f in zip(ax.flat, feats):
        rs = [r for r in rows if r["feature"] == f]
        ys = [float(r["contribution"]) for r in rs]
        # explain()'s rows (released noisy counts), when recorded: grey where near empty
        n = [float(r["rows"]) if r.get("rows") else None for r in rs]
        few = [c is not None and c < 0.005 * sum(n) for c in n]
        if rs[0]["level"].startswith("["):
            lo = [float(r["level"][1:].split(",")[0]) for r in rs]
            hi = float(rs[-1]["level"].split(",")[1].strip(" )]"))
            a.step(lo + [hi], ys + ys[-1:], where="post")
            if None not in n:
                b = a.twinx()
                b.bar(lo, n, width=[(hi if i + 1 == len(lo) else lo[i + 1]) - x for i, x in enumerate(lo)],
                      align="edge", color="grey", alpha=0.2)
                b.tick_params(axis="y", labelsize=6, colors="grey")
                a.set_zorder(b.get_zorder() + 1)
                a.patch.set_visible(False)
        else:
            a.barh([(r["level"] or "other") + ("" if c is None else f" ({c:.0f})") for r, c in zip(rs, n)],
                   ys, color=["lightgrey" if w else "tab:orange" for w in few])
            a.tick_params(axis="y", labelsize=6)
        a.axhline(0, c="grey", lw=0.5)
        a.set_title(f"{f} (importance {float(rs[0]['importance']):.2f})", fontsize=9)
    for a in list(ax.flat)[len(feats):]:
        a.axis("off")
    fig.suptitle("contribution to the margin per level or bin (grey: rows, the released noisy count; "
                 "light bars: < 0.5 % of rows); intercept "
                 + ", ".join(f"{float(r['contribution']):.2f}" for r in bias), fontsize=10)
    fig.tight_layout()
    fig.savefig(f"{IMG}/ebm_shapes.png", dpi=60)


def figure1():
    """the paper's Figure 1 (bench/figure1/run.sh): adult.test accuracy per mechanism and ε"""
    rows = [l.split() for l in open("bench/figure1/summary.dat") if l.strip()]
    mechs = ["opdisc", "rspm", "logistic", "noisysgd"]
    eps = sorted({float(r[1]) for r in rows if r[0] in mechs})
    cell = {(r[0], float(r[1])): f"{float(r[6]):.3f} ± {float(r[7]):.3f}" for r in rows}
    out = ["| ε | OPDisc | RSPM | objective (LR) | noisy GD (T = 30) |", "|---:|---|---|---|---|"]
    for e in eps:
        out.append(f"| {e:g} | " + " | ".join(cell.get((m, e), "") for m in mechs) + " |")
    np = {r[0]: float(r[6]) for r in rows if r[0].endswith("_nonprivate")}
    out += ["", f"Non-private: OPDisc's grid optimum {np.get('opdisc_nonprivate', 0):.3f}, "
            f"logistic regression {np.get('logistic_nonprivate', 0):.3f}; majority class 0.764.", "",
            run_line(*list(csv.reader(open("bench/figure1/meta.csv", encoding="utf-8")))[1])]
    return "\n".join(out)


def render():
    out = ["# dpobj benchmarks", "",
           "Each table is the latest run of the command under it (commit, date (UTC), "
           "load), from `bench/csv/`, rendered with the plots by `python3 bench/render.py`. "
           f"Machine: a shared VM with {MACHINE} unless named; times vary about ±30 % with the "
           "load. Accuracy: each table's test split; German credit is held out of every choice.", ""]
    out += ["## Plots", ""]
    for png, caption in PLOTS:
        out += [f"![{caption}](img/{png})", ""]
    listed = {name for _, secs in SECTIONS for name, _, _ in secs}
    extra = sorted(f[:-4] for f in os.listdir("bench/csv") if f.endswith(".csv") and f[:-4] not in listed | PLOTTED)
    for group, secs in SECTIONS + [("Other results", [(n, n, "") for n in extra])] * bool(extra):
        out += [f"## {group}", ""]
        if group == "Accuracy":
            out += ["### Every mechanism against ε on Adult (the paper's Figure 1)", "",
                    "Neel, Roth, Vietri, Wu (2020), Figure 1, reproduced in SQL: the balanced "
                    "training subset (n = 15 682, d = 23), δ = 1/n², 15 runs per ε, paper's grid; "
                    "adult.test accuracy, mean ± sd.", "",
                    "![Figure 1, d = 23](figure1.png)", "", figure1(), ""]
        for name, title, note in secs:
            out += [f"### {title}", ""]
            if note:
                out += [note, ""]
            rows = [r for r in read(name) if SHOW.get(name, lambda r: True)(r)]
            if name in SUMMARY:
                out += [SUMMARY[name](rows, title), ""]
                continue
            rows = PIVOT.get(name, lambda r: r)(rows)
            out += [table(rows, HIDE.get(name, ()), title), ""]
    return "\n".join(out).rstrip() + "\n"


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    os.makedirs(IMG, exist_ok=True)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        # Debian's python3-matplotlib is for Debian's python3 (a pyenv python3 may come first)
        if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
            os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
        sys.exit("bench/render.py: needs python3-matplotlib (apt-get install python3-matplotlib)")
    plot_accuracy(plt)
    plot_scale(plt)
    plot_runs(plt)
    plot_describe(plt)
    plot_shapes(plt)
    plot_fidelity(plt)
    text = render()
    open(DOC, "w", encoding="utf-8").write(text)


if __name__ == "__main__":
    main()
