#!/usr/bin/env python3
"""tests/fuzz/fuzz.py — a seeded fuzz of dpobj's SQL surface: odd calls must end in a result
or a plain error, never a crash, a hang or an internal error.

Usage: fuzz.py DB SEED CASES (run by tests/fuzz/run.sh, after tests/fuzz/setup.sql);
DPOBJ_FUZZ_CLASSES (e.g. "model state", tests/fuzz/sanitize.sh's) draws only those classes.

First every aggregate and model function with each argument NULL in turn (class nulls), then
CASES random cases.
The cases are drawn from SEED alone, so a failure replays: each prints as
"not ok - case N (class): reason" with its statement.  Classes:
  agg     a direct aggregate over generated rows: odd features (NaN, infinities, NULL, ragged,
          empty, 2-D, huge), labels, epsilon, delta and options (the option names are read
          from each aggregate's own "Valid options are" hint, so new options join by themselves)
  model   predict, score, explain, sample, marginal, encode, the _raw forms and dp_evaluate on
          real models of every kind with one to three mutations (tests/fuzz/setup.sql fz.mutate)
  state   final and combine functions on forged aggregate states (fz.forge), through the
          caller's own aggregates; the private bound's bigint[] state forged (case_bins)
  protected  train(), submit(), describe(), aggregate(), evaluate() and synthesize() as an
          analyst without SELECT on the protected table, with odd columns, labels, epsilon,
          delta and options; every submitted job must end, none with an internal error
  helper  the immutable public helpers (calibration, conversions) with odd numbers
  expr    aggregate()'s expressions and conditions (valid, ill-typed, mutated) as "expr" and
          "where", through dpobj.expr_value / expr_test over the rows, in forged layouts
A case fails on: SQLSTATE XX000/XX001 (an internal error), a lost connection (a crash), or no
answer within the chunk's wall time (a hang that ignores cancel; the server is then restarted
with DPOBJ_PGCTL -m immediate).  The statement timeout (5 s, 57014) is an outcome, not a
failure: an option may ask for much work (T 10^8), and the run must then stop on cancel.
Last line: "N passed, M failed" (each case one check).
"""
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time

import fuzzlib

DB, SEED, CASES = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
TIMEOUT_MS = 5000           # statement_timeout of every case
CHUNK = 40                  # cases per psql session
BAD = {"XX000": "internal error", "XX001": "internal error (data corrupted)"}


def psql(sql, timeout=120):
    """Runs sql (-c) in DB; returns (rc, stdout, stderr)."""
    return fuzzlib.psql(DB, sql, timeout)


# --- what the cases choose from ------------------------------------------------------------
AGGS = [  # name, label kinds, the options that reach past the first checks
    ("dp_halfspace", ["b"], {}), ("dp_halfspace_rspm", ["b"], {}), ("dp_expmech", ["b"], {}),
    ("dp_logistic", ["b"], {"R": 2}), ("dp_noisysgd", ["b"], {"R": 2}),
    ("dp_opsamp", ["b"], {"R": 2}), ("dp_auto", ["b"], {"R": 2}),
    ("dp_passglm", ["b"], {"R": 2}),
    ("dp_linear_regression", ["f"], {"R": 2, "y_min": -1, "y_max": 1}),
    ("dp_ebm", ["b", "f"], {"lo": -1, "hi": 1}),
    ("dp_gbdt", ["b", "f"], {"lo": -1, "hi": 1, "trees": 3}),
    ("dp_logistic_multiclass", ["t", "k"], {"R": 2, "classes": ["c0", "c1", "c2"]}),
    ("dp_noisysgd_multiclass", ["t", "k"], {"R": 2, "classes": ["c0", "c1", "c2"]}),
    ("dp_evaluate", ["b", "f", "t"], None),   # None: {"model": a real model}
]
ODD_NUM = ["0", "-1", "1", "0.5", "1e-300", "1e300", "'NaN'", "'Infinity'", "'-Infinity'",
           "NULL", "5e-324", "-0.0", "2", "1e6"]
ODD_JSON = ["null", "true", "0", "-1", "1", "2", "3", "0.5", "1e308", "-1e308", "1e-320",
            "2147483648", "-9223372036854775809", "1e400", "\"NaN\"", "\"Infinity\"", "\"\"",
            "\"private\"", "\"balanced_accuracy\"", "\"accuracy\"", "\"by_size\"", "\"uniform\"",
            "\"auto\"", "\"x\"", "[]", "[1]", "[0, 1]", "[\"c0\"]", "[[1]]", "{}", "{\"a\": 1}",
            "[null]", "16", "65", "4096", "100000000", "0.001"]
ELEMS = ["sin({i})", "cos({i} * 7) / 2", "(({i} % 5) - 2) / 2.0", "'NaN'::float8",
         "'Infinity'::float8", "'-Infinity'::float8", "NULL::float8", "1e300", "5e-324",
         "-0.0::float8", "0::float8", "CASE WHEN {i} % 7 = 0 THEN 'NaN'::float8 ELSE sin({i}) END",
         "CASE WHEN {i} = 2 THEN NULL ELSE cos({i}) END", "{i}::float8", "1e-310"]
LABELS = {
    "b": ["(sin(i) > 0)", "(i % 2 = 0)", "CASE WHEN i = 3 THEN NULL ELSE i % 3 = 0 END", "true",
          "NULL::bool"],
    "f": ["sin(i * 3)", "i::float8", "'NaN'::float8", "'Infinity'::float8", "NULL::float8",
          "CASE WHEN i = 3 THEN 'NaN'::float8 ELSE sin(i) END", "1e300"],
    "t": ["'c' || (i % 3)", "'c0'", "NULL::text", "'zz' || i", "''"],
    "k": ["(i % 4)::bigint", "(-i)::bigint", "NULL::bigint", "9223372036854775807::bigint"],
}
TYPES = {"b": "bool", "f": "float8", "t": "text", "k": "bigint"}
MODEL_NAMES = ["ebm", "ebm_reg", "gbdt", "gbdt_reg", "logistic", "noisysgd", "opsamp", "passglm", "auto", "linreg",
               "multiclass", "halfspace", "rspm", "expmech", "synth"]
STATES = {  # fz.fin_/comb_<name>: its row of fz.states and its state type (setup.sql)
    "halfspace": ("halfspace", "halfspace"), "rspm": ("halfspace", "halfspace"),
    "expmech": ("halfspace", "halfspace"), "logistic": ("logistic", "glm"),
    "noisysgd": ("noisysgd", "glm"), "opsamp": ("logistic", "glm"), "auto": ("logistic", "glm"),
    "linreg": ("linreg", "linreg"), "passglm": ("passglm", "linreg"), "ebm": ("ebm", "ebm"),
    "ebm_reg": ("ebm", "ebm"), "gbdt": ("gbdt", "gbdt"),
    "gbdt_reg": ("gbdt", "gbdt"), "synth": ("synth", "synth")}
RAW_ROWS = ["'{\"sex\": \"F\", \"hours\": 3}'", "'{}'", "'{\"x0\": 1, \"x1\": 0.5, \"x2\": -1}'",
            "'{\"sex\": \"nope\", \"hours\": \"NaN\"}'", "'[1, 2]'", "'null'", "NULL",
            "'{\"sex\": null, \"hours\": 1e308}'"]
HELPERS = [  # name, argument kinds (n: a number, i: an int, t: a mechanism name, j: options)
    ("opdisc_sigma", "nni"), ("rspm_sigma", "nni"), ("expmech_grid_size", "iii"),
    ("analytic_gauss_sigma", "nnn"), ("noisysgd_sigma", "nnin"), ("zcdp_epsilon", "nn"),
    ("gauss_epsilon", "nn"), ("numeric_feature", "n"), ("glm_calibration", "nnj"),
    ("run_label", "tnn"), ("opdisc_sigma", "nniit"), ("rspm_sigma", "nnit"),
]


def options(rng, keys, base, odd=True):
    """An options object: the base, and when odd, one or two keys set to odd values (or a base
    key dropped)."""
    if odd and rng.random() < 0.08:
        return rng.choice(["NULL::jsonb", "'[]'", "'1'", "'\"R\"'"])
    o = {k: json.dumps(v) for k, v in (base or {}).items()}
    if odd and o and rng.random() < 0.2:
        del o[rng.choice(sorted(o))]
    for _ in range(rng.choice([1, 1, 2]) if odd else 0):
        k = rng.choice(keys) if keys and rng.random() < 0.9 else rng.choice(["zz", "", "R "])
        o[k] = rng.choice(ODD_JSON)
    return "'{%s}'" % ", ".join('"%s": %s' % kv for kv in o.items()).replace("'", "''")


def features(rng, i="i", odd=True):
    """A feature array expression over the row number i: three plain features, or when odd an
    odd shape or odd elements."""
    plain = "ARRAY[%s]::float8[]" % ", ".join(e.format(i=i) for e in ELEMS[:3])
    if not odd:
        return plain
    r = rng.random()
    if r < 0.1:
        return "NULL::float8[]"
    if r < 0.2:
        return "'{}'::float8[]"
    if r < 0.27:
        return "ARRAY[[sin(%s), 1], [0, 1]]::float8[]" % i
    if r < 0.37:                             # ragged: rows of two lengths
        return ("CASE WHEN %s %% 4 = 0 THEN ARRAY[sin(%s)] ELSE ARRAY[sin(%s), cos(%s)] END::float8[]"
                % (i, i, i, i))
    if r < 0.42:
        return "array_fill(sin(%s), ARRAY[%d])::float8[]" % (i, rng.choice([300, 3000]))
    d = rng.choice([1, 2, 3, 3, 3, 5])
    return "ARRAY[%s]::float8[]" % ", ".join(
        (rng.choice(ELEMS) if rng.random() < 0.4 else ELEMS[j % 3]).format(i=i) for j in range(d))


def case_agg(rng, keys):
    """A direct aggregate over generated rows with one or two odd parts."""
    name, kinds, base = rng.choice(AGGS)
    kind = rng.choice(kinds)
    odd = set(rng.sample(["features", "label", "eps", "delta", "options", "options", "options",
                          "rows"], rng.choice([1, 1, 2])))
    n = rng.choice([0, 1, 2, 5, 3000]) if "rows" in odd else rng.choice([40, 40, 200])
    eps = rng.choice(ODD_NUM) if "eps" in odd else "1"
    delta = rng.choice(ODD_NUM) if "delta" in odd else "1e-6"
    label = rng.choice(LABELS[kind][1:]) if "label" in odd else LABELS[kind][0]
    if base is None:      # dp_evaluate: a real model of a fitting kind as its option
        m = {"b": "logistic", "f": "linreg", "t": "multiclass"}[kind]
        how = rng.choice(["mutated", "mutated", "kind", "kind", "null", "keys"]) \
            if "options" in odd else ""
        if how == "kind":
            m = rng.choice(MODEL_NAMES)
        opts = ("jsonb_build_object('model', (SELECT %s FROM fz.models WHERE name = '%s')::text)"
                % (mutated("m", rng) if how == "mutated" else "m", m))
        if how == "null":
            opts = rng.choice(["NULL::jsonb", "'{}'", "'{\"model\": null}'"])
        if how == "keys":
            opts = "(%s || %s)" % (opts, options(rng, ["rows_per_unit", "filter"], {}))
    else:
        opts = options(rng, keys.get(name, []), base, "options" in odd)
    four = name in ("dp_halfspace", "dp_halfspace_rspm", "dp_expmech") and rng.random() < 0.3
    args = "%s, %s, %s, %s" % (features(rng, "i", "features" in odd), label, eps, delta)
    call = "dpobj.%s(%s%s)" % (name, args, "" if four else ", " + opts)
    return "SELECT %s IS NULL FROM generate_series(1, %d) i" % (call, n)


def mutated(expr, rng):
    for _ in range(rng.choice([1, 1, 1, 2])):
        expr = "fz.mutate(%s, %d, %d, %d)" % (expr, rng.randrange(1000), rng.randrange(1000),
                                              rng.randrange(1000))
    return expr


def case_model(rng):
    name = rng.choice(MODEL_NAMES)
    m = mutated("m", rng) if rng.random() < 0.85 else "m"
    fn = rng.choice(["predict", "score", "probability", "predict_class", "explain", "model_kind",
                     "sample", "marginal", "evaluate", rng.choice(["encode", "predict_raw",
                     "score_raw", "probability_raw", "predict_class_raw"])])
    src = "FROM fz.models WHERE name = '%s'" % name
    if fn in ("predict", "score", "probability", "predict_class"):
        f = features(rng, "id")
        return ("SELECT dpobj.%s(%s, %s) IS NULL FROM fz.models, generate_series(1, 5) id "
                "WHERE name = '%s'" % (fn, m, f, name))
    if fn in ("explain", "model_kind"):
        return "SELECT dpobj.%s(%s)::text IS NULL %s" % (fn, m, src)
    if fn == "sample":
        return "SELECT count(*) FROM (SELECT dpobj.sample(%s, %s) %s) s" % (
            m, rng.choice(["0", "1", "25", "-1", "NULL"]), src)
    if fn == "marginal":
        cols = rng.choice(["ARRAY['sex']", "ARRAY['hours', 'sex']", "'{}'::text[]",
                           "ARRAY['nope']", "NULL::text[]", "ARRAY['sex', 'sex']", "ARRAY[NULL]"])
        return "SELECT count(*) FROM (SELECT dpobj.marginal(%s, %s) %s) s" % (m, cols, src)
    if fn == "evaluate":
        return ("SELECT dpobj.dp_evaluate(f, y, 1, 1e-6, jsonb_build_object('model', "
                "(SELECT %s %s)::text)) IS NULL FROM fz.rows WHERE i <= 60" % (m, src))
    unknown = rng.choice(["", ", 'error'", ", 'other'", ", 'warn'", ", 'x'", ", NULL"])
    return "SELECT dpobj.%s(%s, %s::jsonb%s)::text IS NULL %s" % (
        fn, m, rng.choice(RAW_ROWS), unknown, src)


def forged_bins(rng):
    """a bigint[] that may or may not be the private bound's 15-bin state"""
    n = rng.choice([0, 1, 14, 15, 15, 15, 16, 30])
    vals = [rng.choice(["0", "1", "-1", "7", "9223372036854775807", "-9223372036854775808",
                        "NULL", str(rng.randrange(10 ** 6))]) for _ in range(n)]
    shape = rng.choice(["plain", "plain", "plain", "lbound", "2d"])
    if shape == "2d" and n:
        return "'{{%s},{%s}}'::bigint[]" % (",".join(vals), ",".join(vals))
    body = "{%s}" % ",".join(vals)
    return "'%s%s'::bigint[]" % ("[0:%d]=" % (n - 1) if shape == "lbound" and n else "", body)


def case_bins(rng):
    """the private bound's Citus state, forged, through the caller's own aggregates"""
    a, b = forged_bins(rng), forged_bins(rng)
    agg = rng.choice(["comb", "comb", "fin", "init", "init0", "initneg"])
    if agg in ("comb", "fin"):
        return "SELECT fz.%s_bins(x)::text IS NULL FROM (VALUES (%s), (%s)) v(x)" % (agg, a, b)
    return "SELECT fz.%s_bins(k, '{}')::text IS NULL FROM (VALUES (1::bigint), (%s)) v(k)" % (
        agg, rng.choice(["NULL::bigint", "5::bigint", "(-3)::bigint", "9223372036854775807"]))


def case_state(rng):
    if rng.random() < 0.1:
        return case_bins(rng)
    name = rng.choice(sorted(STATES))
    st, stype = STATES[name]
    s = "s"
    for _ in range(rng.choice([1, 1, 2, 3])):
        s = "fz.forge(%s, %d, %d, %d)" % (s, rng.choice([0, 1, 1, 1, 2, 3, 4, 5]),
                                          rng.randrange(100000),
                                          rng.randrange(1000))
    if rng.random() < 0.5:
        return "SELECT fz.fin_%s(%s) IS NULL FROM fz.states WHERE name = '%s'" % (name, s, st)
    return ("SELECT fz.comb_%s(x::dpobj.%s_state) IS NULL FROM fz.states, "
            "LATERAL (VALUES (s), (%s)) v(x) WHERE name = '%s'" % (name, stype, s, st))


TRAIN = {"opdisc": "dp_halfspace", "rspm": "dp_halfspace_rspm", "expmech": "dp_expmech",
         "logistic": "dp_logistic", "noisysgd": "dp_noisysgd", "ebm": "dp_ebm", "gbdt": "dp_gbdt",
         "auto": "dp_auto",
         "opsamp": "dp_opsamp", "linear": "dp_linear_regression", "passglm": "dp_passglm",
         "logistic_multiclass": "dp_logistic_multiclass",
         "noisysgd_multiclass": "dp_noisysgd_multiclass"}
COLS = ["ARRAY['a', 'b', 'c3']", "ARRAY['sex', 'hours']", "'{}'::text[]", "ARRAY['nope']",
        "ARRAY['a', 'a']", "ARRAY['y']", "NULL::text[]", "ARRAY['i']", "ARRAY[NULL]",
        "ARRAY['a', 'sex', 'hours', 'r']"]
STATS = ['{"stat": "count"}', '{"stat": "mean", "column": "hours"}',
         '{"stat": "histogram", "column": "sex"}', '{"stat": "quantile", "column": "a", "q": 0.5}',
         '{"stat": "sum", "column": "r"}', '{"stat": "mean", "column": "nope"}',
         '{"stat": "zz"}', '{"stat": "histogram", "column": "hours"}', '{}', '1',
         '{"stat": "quantile", "column": "b", "q": 2}', '{"stat": "mean", "column": "sex"}',
         '{"stat": "count", "column": "hours"}', '{"stat": "variance", "column": "hours", "sample": true}',
         '{"stat": "mean", "column": "hours", "sample": 1}', '{"stat": "count", "column": "sex", "bins": 2}']


def case_protected(rng, keys):
    """train(), submit(), describe(), aggregate(), evaluate() or synthesize() as the analyst,
    who may not read the table, with one or two odd parts."""
    odd = set(rng.sample(["cols", "label", "eps", "delta", "options", "options"],
                         rng.choice([1, 1, 2])))
    eps = rng.choice(ODD_NUM) if "eps" in odd else "1"
    # (no delta of 0.5: one such run would leave the budget no delta for the others)
    delta = rng.choice([x for x in ODD_NUM if x != "0.5"]) if "delta" in odd else "1e-6"
    cols = rng.choice(COLS) if "cols" in odd else COLS[0]
    fn = rng.choice(["train"] * 4 + ["submit", "describe", "aggregate", "evaluate", "synthesize"])
    if fn in ("train", "submit"):
        mech = rng.choice(sorted(TRAIN))
        base = next(b for n, _, b in AGGS if n == TRAIN[mech])
        label = {"linear": "r", "logistic_multiclass": "c", "noisysgd_multiclass": "c"}.get(
            mech, rng.choice(["y", "y", "r"]) if mech in ("ebm", "gbdt") else "y")
        if "label" in odd:
            label = rng.choice(["a", "sex", "nope", "c", "i", "", "y"])
        base = {k: v for k, v in (base or {}).items() if k != "classes"}
        if mech.endswith("multiclass"):
            base["classes"] = ["c0", "c1", "c2"]
        call = "dpobj.%s('fz.people', '%s', %s, '%s', %s, %s, %s) IS NULL" % (
            fn, mech, cols, label, eps, delta,
            options(rng, keys.get(TRAIN[mech], []), base, "options" in odd))
    elif fn == "describe":
        call = "count(*) FROM dpobj.describe('fz.people', %s, %s, %s)" % (
            eps, delta, options(rng, ["columns", "bins", "shares", "filter", "rows_per_unit"], {},
                                "options" in odd))
    elif fn == "aggregate":
        what = "[%s]" % ", ".join(rng.sample(STATS[:5] if "options" not in odd else STATS,
                                             rng.choice([1, 2, 3])))
        group = rng.choice(["'{}'", "ARRAY['sex']", "ARRAY['nope']", "ARRAY['hours']"]) \
            if "cols" in odd else "'{}'"
        call = "count(*) FROM dpobj.aggregate('fz.people', '%s', %s, %s, %s)" % (
            what, eps, delta, group)
    elif fn == "evaluate":
        name = rng.choice(MODEL_NAMES) if "label" in odd else "logistic"
        m = mutated("m", rng) if "options" in odd else "m"
        call = ("dpobj.evaluate('fz.people', %s, %s, '%s', %s, %s)::text IS NULL "
                "FROM fz.models WHERE name = '%s'" % (m, cols, "y", eps, delta, name))
    else:
        call = "count(*) FROM dpobj.synthesize('fz.people', 'fz_out.t%d', %s, %s, %s, %s)" % (
            rng.randrange(10 ** 9), eps, delta, cols if "cols" in odd else "NULL",
            options(rng, ["rows", "domains", "workload", "label", "bins", "quantile", "sub_bins",
                          "max_model_cells", "iterations", "integer", "not_null"], {},
                    "options" in odd))
    return "SET ROLE fz_analyst; SELECT %s; RESET ROLE" % call


EXPR_COLS = ["a", "b", "hours", "i", "sex", "y", "nope", "c"]


def expr_value(rng, depth=0):
    """A random expression of the aggregate's JSON form (context/exprjson.c), often ill-typed."""
    if (depth > 4 or rng.random() < 0.3) and rng.random() < 0.8:
        return rng.choice([{"col": rng.choice(["a", "b", "hours", "i", "y"])},
                           {"num": rng.choice([0, 1, -2.5, 1e300, 1e-300])}])
    if depth > 4 or rng.random() < 0.3:
        return rng.choice([{"col": rng.choice(EXPR_COLS)}, {"num": rng.choice([0, 1, -2.5, 1e300, 1e-300])},
                           {"text": rng.choice(["F", "", "x%"])}, {"bool": True}, {"null": True},
                           {"date": rng.choice(["2024-01-31", "2024-02-30", "x"])},
                           {"timestamp": "2024-01-31 10:00:00"}])
    op = rng.choice(["+", "-", "*", "/", "neg", "abs", "coalesce", "case", "extract", "bool"])
    if op == "case":
        return {"op": "case", "when": [{"if": expr_cond(rng, depth + 1), "then": expr_value(rng, depth + 1)}
                                       for _ in range(rng.choice([1, 2]))], "else": expr_value(rng, depth + 1)}
    if op == "extract":
        return {"op": op, "field": rng.choice(["year", "dow", "epoch", "week"]), "args": [expr_value(rng, depth + 1)]}
    if op == "bool":
        return {"op": op, "args": [expr_cond(rng, depth + 1)]}
    n = 2 if op in "+-*/" else rng.choice([1, 3]) if op == "coalesce" else 1
    return {"op": op, "args": [expr_value(rng, depth + 1) for _ in range(n)]}


def expr_cond(rng, depth=0):
    if depth > 4 or rng.random() < 0.3:
        return rng.choice([{"col": "y"}, {"op": "is_null", "args": [expr_value(rng, depth + 1)]},
                           {"op": "like", "args": [{"col": "sex"}, {"text": "F%"}]}])
    op = rng.choice(["and", "or", "not", "=", "<", ">=", "in", "between", "ilike"])
    if op in ("and", "or", "not"):
        return {"op": op, "args": [expr_cond(rng, depth + 1) for _ in range(1 if op == "not" else 2)]}
    n = {"in": 3, "between": 3}.get(op, 2)
    return {"op": op, "args": [expr_value(rng, depth + 1) for _ in range(n)]}


def expr_mutate(rng, e):
    """One node of e replaced by an odd JSON value, or a key added or dropped."""
    if not isinstance(e, dict) or rng.random() < 0.3:
        return json.loads(rng.choice(ODD_JSON)) if rng.random() < 0.5 else dict(e, zz=1) if isinstance(e, dict) else e
    k = rng.choice(sorted(e))
    if isinstance(e[k], list) and e[k]:
        lst = list(e[k])
        j = rng.randrange(len(lst))
        lst[j] = expr_mutate(rng, lst[j])
        return dict(e, **{k: lst})
    if rng.random() < 0.5:
        return {kk: v for kk, v in e.items() if kk != k}
    return dict(e, **{k: json.loads(rng.choice(ODD_JSON))})


def case_expr(rng):
    """An expression or condition (valid, ill-typed or mutated) through aggregate()'s "expr" and
    "where" as the analyst, through the per-row functions directly over odd rows, and in a
    forged layout of aggregate_rows()."""
    e = expr_value(rng)
    c = expr_cond(rng)
    if rng.random() < 0.3:
        e = expr_mutate(rng, e)
    if rng.random() < 0.2:
        c = expr_mutate(rng, c)
    q = lambda v: json.dumps(v).replace("'", "''")
    form = rng.choice(["aggregate", "aggregate", "direct", "rows"])
    if form == "aggregate":
        stat = rng.choice(["count", "sum", "mean", "variance", "quantile", "histogram"])
        what = [{"stat": stat, "expr": e}] + ([{"stat": "count"}] if rng.random() < 0.5 else [])
        if stat == "quantile":
            what[0]["q"] = 0.5
        return ("SET ROLE fz_analyst; SELECT count(*) FROM dpobj.aggregate('fz.people', '%s', 1, 1e-6, '{}', '%s'); RESET ROLE"
                % (q(what), q({"where": c})))
    if form == "direct":
        cols = rng.sample(["a", "hours", "sex", "y", "i", "c"], rng.choice([1, 2, 3]))
        fn, body = rng.choice([("expr_value", e), ("expr_test", c)])
        return ("SELECT count(dpobj.%s('%s', %s)) FROM fz.people"
                % (fn, q({"args": cols, "e": body}), ", ".join(cols)))
    layout = {"encoding": [{"column": json.dumps(e, separators=(", ", ": ")), "lo": -1, "hi": 1}],
              "group_by": [], "what": [{"stat": rng.choice(["sum", "mean", "count"]), "expr": e}]}
    if rng.random() < 0.2:
        layout["what"][0]["sample"] = json.loads(rng.choice(ODD_JSON))
    return ("SELECT count(*) FROM dpobj.aggregate_rows('%s', '{\"values\": [1, 2], \"noise\": [[65536, 65536], [2097152, 1048576]], \"epsilon\": 1, \"delta\": 0}')"
            % q(layout))


def case_helper(rng):
    name, kinds = rng.choice(HELPERS)
    vals = {"n": ODD_NUM + ["0.1", "1e-6", "10"], "i": ["0", "-1", "1", "3", "100", "2147483647",
                                                         "NULL"],
            "t": ["'opdisc'", "'exact'", "'glpk'", "''", "'x'", "NULL", "'ebm'", "'paper'"],
            "j": [options(rng, ["R", "method", "lambda", "h", "loss", "n"], {"R": 1})]}
    args = ", ".join(rng.choice(vals[k]) for k in kinds)
    return "SELECT dpobj.%s(%s)::text IS NULL" % (name, args)


def read_keys():
    """Each aggregate's option names, from its own unknown-option hint."""
    keys = {}
    for name, kinds, base in AGGS:
        label = {"b": "true", "f": "1.0::float8", "t": "'c0'", "k": "1::bigint"}[kinds[0]]
        _, _, err = psql("SELECT dpobj.%s(ARRAY[1.0, 2]::float8[], %s, 1, 1e-6, '{\"zz_fuzz\": 1}')"
                         % (name, label))
        m = re.search(r"Valid options are (.*?)(?:;|\.\n|\.$)", err)
        if m:
            names = re.sub(r"\([^)]*\)", "", m.group(1))
            keys[name] = [k.strip() for k in re.split(r", | and ", names)]
    return keys


def run_chunk(stmts, first):
    """Runs stmts (case numbers first..) in one session; returns {case: failure},
    {case: SQLSTATE} and the number of cases that ran (a crash or hang ends the session)."""
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
        f.write("\\set VERBOSITY sqlstate\nSET statement_timeout = %d;\n" % TIMEOUT_MS)
        f.write("SET application_name = 'dpobj_fuzz';\n")    # (3 lines before case first)
        f.writelines(s.replace("\n", " ") + ";\n" for s in stmts)
        path = f.name
    try:
        p = subprocess.run(["psql", "-X", "-q", "-d", DB, "-f", path, "-o", "/dev/null"],
                           capture_output=True, text=True,
                           timeout=60 + TIMEOUT_MS / 1000 * len(stmts))
    except subprocess.TimeoutExpired:
        n = hung_case(stmts, first)
        fuzzlib.restart()
        return {n: "no answer within the wall time (a hang that ignores cancel)"}, {}, n - first + 1
    finally:
        os.unlink(path)
    bad, errs, ran = {}, {}, len(stmts)
    for line in p.stderr.splitlines():
        m = re.match(r"psql:[^:]*:(\d+): (?:ERROR|FATAL):\s+(\w+)", line)
        if m:
            errs[first + int(m.group(1)) - 4] = m.group(2)
            if m.group(2) in BAD:
                bad[first + int(m.group(1)) - 4] = BAD[m.group(2)]
        m = re.match(r"psql:[^:]*:(\d+): .*(server closed the connection|connection to server"
                     r" was lost|terminated abnormally)", line)
        if m:
            n = first + int(m.group(1)) - 4
            bad[n] = "lost connection (a crash)"
            return bad, errs, n - first + 1
    if p.returncode not in (0, 1):
        bad[first + len(stmts) - 1] = "psql exit %d: %s" % (p.returncode, p.stderr[-300:])
    return bad, errs, ran


def hung_case(stmts, first):
    """The case whose statement is still active in the fuzz session (else the chunk's first)."""
    _, q, _ = psql("SELECT query FROM pg_stat_activity WHERE application_name = 'dpobj_fuzz'"
                   " AND state = 'active'", timeout=30)
    q = q.strip()[:200]
    return next((first + i for i, s in enumerate(stmts) if q and q in s + ";"), first)


PROTECTED_NULLS = [  # each argument with its type, for the NULL in its place
    ("train", ["'fz.people'::regclass", "'logistic'::text", "ARRAY['a', 'b', 'c3']::text[]",
               "'y'::text", "1::numeric", "1e-6::numeric", "'{\"R\": 2}'::jsonb"]),
    ("submit", ["'fz.people'::regclass", "'ebm'::text", "ARRAY['a', 'sex']::text[]", "'y'::text",
                "1::numeric", "1e-6::numeric", "'{}'::jsonb"]),
    ("describe", ["'fz.people'::regclass", "1::float8", "0::float8", "'{}'::jsonb"]),
    ("aggregate", ["'fz.people'::regclass", "'[{\"stat\": \"count\"}]'::jsonb", "1::float8",
                   "0::float8", "'{}'::text[]", "'{}'::jsonb"]),
    ("evaluate", ["'fz.people'::regclass", "(SELECT m FROM fz.models WHERE name = 'logistic')"
                  "::dpobj.model", "ARRAY['a', 'b', 'c3']::text[]", "'y'::text", "1::numeric",
                  "1e-6::numeric", "'{}'::jsonb"]),
    ("synthesize", ["'fz.people'::regclass", "'fz_out.nulls%d'::text", "1::float8",
                    "1e-6::float8", "ARRAY['sex', 'hours']::text[]", "'{}'::jsonb"]),
]


def null_cases():
    """Every aggregate (each label type), model function and protected entry point with each
    argument NULL in turn: the systematic part, before the random cases."""
    cases = []
    for name, kinds, base in AGGS:
        for kind in kinds:
            opts = ("jsonb_build_object('model', (SELECT m FROM fz.models WHERE name = 'logistic')"
                    "::text)" if base is None else "'%s'" % json.dumps(base))
            args = [features(None, "i", False), LABELS[kind][0], "1", "1e-6", opts]
            types = ["float8[]", TYPES[kind], "float8", "float8", "jsonb"]
            for k in range(len(args)):
                a = args[:k] + ["NULL::" + types[k]] + args[k + 1:]
                cases.append(("nulls", "SELECT dpobj.%s(%s) IS NULL FROM generate_series(1, 40) i"
                              % (name, ", ".join(a))))
    calls = {"predict": "m, %s", "score": "m, %s", "probability": "m, %s",
             "predict_class": "m, %s", "explain": "m", "model_kind": "m", "sample": "m, 5",
             "marginal": "m, ARRAY['sex']", "encode": "m, '{}'", "predict_raw": "m, '{}'",
             "score_raw": "m, '{}'", "probability_raw": "m, '{}'", "predict_class_raw": "m, '{}'"}
    feats = "ARRAY[0.5, -0.5, 1]::float8[]"
    for fn, args in sorted(calls.items()):
        args = [feats if x == "%s" else x for x in args.split(", ")]
        for name in MODEL_NAMES:
            for k in range(len(args)):
                a = args[:k] + ["NULL" if k else "NULL::dpobj.model"] + args[k + 1:]
                cases.append(("nulls", "SELECT dpobj.%s(%s)::text IS NULL FROM fz.models WHERE "
                              "name = '%s'" % (fn, ", ".join(a), name)))
    for fn, args in PROTECTED_NULLS:
        for k in range(len(args)):
            a = [("NULL::" + x.split("::")[-1]) if j == k else x.split("::")[0] if x.endswith(
                "::regclass") else x for j, x in enumerate(args)]
            cases.append(("nulls", "SET ROLE fz_analyst; SELECT count(*) FROM (SELECT dpobj.%s(%s))"
                          " r; RESET ROLE" % (fn, ", ".join(a).replace("%d", str(k)))))
    return cases


def make_cases(rng, keys):
    makers = [("agg", lambda: case_agg(rng, keys))] * 4 + [("model", lambda: case_model(rng))] * 3 \
        + [("state", lambda: case_state(rng))] * 2 + [("helper", lambda: case_helper(rng))] \
        + [("protected", lambda: case_protected(rng, keys))] + [("expr", lambda: case_expr(rng))]
    only = os.environ.get("DPOBJ_FUZZ_CLASSES", "").split()
    makers = [m for m in makers if not only or m[0] in only]
    cases = null_cases()
    for _ in range(CASES):
        cls, make = rng.choice(makers)
        cases.append((cls, make()))
    if os.environ.get("DPOBJ_FUZZ_DUMP"):        # the cases as a script, to replay by hand
        with open(os.environ["DPOBJ_FUZZ_DUMP"], "w") as f:
            f.writelines("-- case %d (%s)\n%s;\n" % (n, c, s) for n, (c, s) in enumerate(cases))
    return cases


def run_cases(cases):
    """Runs every case; prints the failures; returns (passed, failed, per class: [passed,
    failed, {outcome: count}])."""
    passed = failed = i = 0
    per = {}
    while i < len(cases):
        chunk = cases[i:i + CHUNK]
        bad, errs, ran = run_chunk([s for _, s in chunk], i)
        for n in range(i, i + ran):
            cls, stmt = cases[n]
            c = per.setdefault(cls, [0, 0, {}])
            c[2][errs.get(n, "result")] = c[2].get(errs.get(n, "result"), 0) + 1
            if n in bad:
                failed += 1
                c[1] += 1
                print("not ok - case %d (%s): %s\n#   %s" % (n, cls, bad[n], stmt))
            else:
                passed += 1
                c[0] += 1
        if ran < len(chunk) and not fuzzlib.wait_up(DB):
            print("not ok - the server did not come back after case %d" % (i + ran - 1))
            return passed, failed + 1, per
        i += ran
    return passed, failed, per


def check_jobs():
    """Every job the cases submitted ends within two minutes, none with an internal error."""
    sql = ("SELECT count(*) FILTER (WHERE state IN ('queued', 'running')), count(*), "
           "string_agg(id || ': ' || sqlstate || ' ' || error, '; ') FILTER (WHERE sqlstate "
           "IN ('XX000', 'XX001')) FROM dpobj.jobs")
    for _ in range(120):
        rc, out, err = psql(sql, timeout=30)
        left, total, bad = (out.strip().split("|") + ["", "", ""])[:3] if rc == 0 else ("?", "?", "")
        if left == "0":
            break
        time.sleep(1)
    ok = rc == 0 and left == "0" and not bad
    print("%s - the %s submitted jobs ended, none with an internal error%s" % (
        "ok" if ok else "not ok", total, "" if ok else " (%s left; %s)" % (left, bad or err)))
    return ok


def main():
    rng = random.Random(SEED)
    keys = read_keys()
    print("# option names read for %d aggregates; seed %d, %d cases" % (len(keys), SEED, CASES))
    ok = len(keys) == len(AGGS) - 1          # all but dp_evaluate, which takes only "model"
    print(("ok" if ok else "not ok") + " - every aggregate's option names read from its hint")
    t0 = time.time()
    passed, failed, per = run_cases(make_cases(rng, keys))
    jobs_ok = check_jobs()
    passed, failed = passed + jobs_ok, failed + (not jobs_ok)
    for cls, (p, f, st) in sorted(per.items()):
        top = sorted(st.items(), key=lambda kv: -kv[1])[:6]
        print("# %s: %d cases, %d failed; outcomes %s" % (
            cls, p + f, f, ", ".join("%s %d" % kv for kv in top)))
    print("# %d cases in %.0f s" % (sum(p + f for p, f, _ in per.values()), time.time() - t0))
    print("%d passed, %d failed" % (passed + ok, failed + (not ok)))
    return 1 if failed or not ok else 0


if __name__ == "__main__":
    sys.exit(main())
