#!/usr/bin/env python3
"""tests/fuzz/query.py — the private-query fuzz: random aggregate SELECTs over protected
tables with nasty rows (tests/fuzz/query.sql), run as an analyst who may not read them.

Usage: query.py DB SEED CASES (run by tests/fuzz/run.sh and tests/fuzz/sanitize.sh, after
tests/fuzz/setup.sql and query.sql).  Case c of SEED is the same text on any server: it
replays.  Each case is one of
  - a plain SELECT (some reading the table through a WITH query or a derived table,
    inlined; random WHERE trees: and/or/not, comparisons, IN, BETWEEN, IS NULL,
    LIKE/ILIKE, arithmetic with division by values that may be zero, CASE, COALESCE, casts,
    extract, date_trunc, date - date, NULLIF, boolean::int, constant expressions folded first (date +
    interval, 1 / 0); random aggregate lists, some with FILTER (WHERE ...); GROUP BY, HAVING,
    ORDER BY, LIMIT; a public lookup table joined (ON or USING; a second on its column; itself again, aliased),
    before or after the table in FROM, its columns grouped, filtered and aggregated);
  - a prepared statement with parameters, executed twice with nasty values (a generic
    plan forced in some);
  - EXPLAIN of a SELECT (no run, no charge), EXPLAIN ANALYZE (a run, one charge);
  - dpobj.query(text, epsilon, delta);
  - a count under a random condition over text columns, against the owner's count;
  - count(DISTINCT s) on the pair fz.qa5 / fz.qb5 whose privacy unit is s (random groups,
    conditions, another aggregate, a join on the unit, ON or USING, to fz.qj<t>5 of its budget domain),
    or count(DISTINCT) of another column there (refused);
  - a SELECT with a construct that must be refused (a window function, a subquery, a set
    operation, DISTINCT, a join, the analyst's own function or operator, a volatile
    function, a system column, ...).
Each case runs on both tables of a neighbouring pair fz.qa<k> / fz.qb<k> (one nasty row
apart), in one analyst session per chunk.  A case fails when
  - an error is XX000/XX001 (internal), or the connection is lost (a crash), or a chunk
    hangs past its wall time;
  - a run is charged and then fails (the ledger's outcome of its charge is not "released");
  - a refused run (an error) is charged but not released; EXPLAIN charges;
  - a construct that must be refused is accepted, or a run is accepted with no charge;
  - a case the analyst may run is refused with 42501 (a permission refusal: every table,
    lookup and budget of the cases is the analyst's to use; a WHERE on constants alone once
    folded the scan away and the run refused "no scan of the protected table");
  - a count under a condition over text columns (comparisons, IN, LIKE, ILIKE, IS NULL:
    semantics dpobj shares with PostgreSQL), at an epsilon where it is exact but with
    probability e^-100000, differs from the owner's plain count;
  - the two neighbours' outcomes differ (success, or the SQLSTATE of the error, and the
    SQLSTATEs of the notices and warnings the run sent);
and after the campaign the server log must show no PANIC, TRAP or crash.
Last line: "N passed, M failed"; a failure prints its case's statements (replay them as
the analyst: SET ROLE fz_qanalyst; SET dpobj.query_epsilon = 1; SET dpobj.query_delta = 1e-6).
"""
import collections
import os
import random
import re
import subprocess
import sys
import tempfile
import time

import fuzzlib

DB, SEED, CASES = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
CHUNK = 50
PAIRS = 4
BAD = ("XX000", "XX001")
LOST = re.compile(r"server closed the connection|connection to server was lost|"
                  r"terminated abnormally|no connection to the server|could not connect")

NUMCOLS = ["x", "n", "m", "f4", "h", "k", "id"]
BOUNDED = ["x", "n", "m", "f4", "h"]           # declared bounds: aggregates over them are accepted
TEXTCOLS = ["g", "s", "sc", "ci", "vc", "bp"]
NUMCONST = ["0", "1", "-1", "2.5", "1e308", "-1e308", "1e-300", "5e-324", "0.0",
            "1e400::numeric", "1e-400::numeric", "('1' || repeat('0', 1000))::numeric",
            "9223372036854775807", "-9223372036854775808", "2147483647", "'NaN'::float8",
            "'Infinity'::float8", "'-Infinity'::numeric", "100", "-0.0", "3.4e38::real",
            "NULL::float8", "NULL", "1e1000::numeric / 1e999::numeric"]
TEXTCONST = ["''", "'a'", "'b'", "'zz'", "'é'", "'中'", "'\U0001F600'", "'A'", "'v1'",
             "'x' || 'y'", "repeat('long', 2500)", "'%'", "'_'", "'a%'", "'%é%'", "'\\'",
             "NULL", "'İı'", "'Straße'", "'a\tb'"]
DATECONST = ["'infinity'::date", "'-infinity'::date", "'4713-01-01 BC'::date",
             "'5874897-12-31'::date", "date '2024-03-01'", "date '2000-02-29'", "NULL::date",
             "'epoch'::date"]
TSCONST = ["'infinity'::timestamp", "'-infinity'::timestamp", "'294276-12-31 23:59:59'::timestamp",
           "'4713-01-01 00:00 BC'::timestamp", "timestamp '2024-01-05 10:00'", "NULL::timestamp",
           "'2024-01-05'::timestamptz"]
# constant expressions over dates, folded into constants before the query compiles
DATEEXPR = ["date '2024-01-01' + interval '1 month'", "date '2024-03-01' - 30",
            "make_date(2024, 1, 1)", "timestamp '2024-01-05' - interval '90' day",
            "date '2024-01-01' + 1 + 1", "make_date(2024, 2, 30)", "'infinity'::date - 1"]
FIELDS = ["year", "quarter", "month", "day", "dow", "doy", "hour", "minute", "epoch",
          "second", "century", "julian", "isoyear"]
AGGS = ["count(*)", "count(id)", "sum({e})", "avg({e})", "variance({e})", "var_pop({e})",
        "var_samp({e})", "stddev({e})", "stddev_pop({e})", "stddev_samp({e})", "min({c})",
        "max({c})", "percentile_cont({q}) WITHIN GROUP (ORDER BY {c})",
        "percentile_disc({q}) WITHIN GROUP (ORDER BY {c})", "count({c})", "sum({c})",
        "avg({c})"]
GROUPS = [[], [], ["g"], ["k"], ["b"], ["g", "k"], ["g", "b"], ["s"], ["sc"], ["x"],
          ["d"], ["g", "s"], ["ci"], ["ci", "g"], ["vc"], ["bp"],
          # h's declared range [0, 100] as its levels (rangelevels.c): every group appears
          ["h"], ["h / 10"], ["width_bucket(h, 0, 100, 4)"], ["floor(h / 25.0)"],
          ["CASE WHEN h < 30 THEN 'lo' WHEN h < 60 THEN 'mid' ELSE 'hi' END"], ["h / 10", "g"]]
LIKEPAT = ["'_'", "'__'", "'%_'", "'_%'", "'%\\%%'", "'%\\_'", "'é_'", "'_é%'", "'%É%'", "'A%'",
           "'%s_'", "'c_'", "'c_  '", "'%\U0001F600'", "'_\U0001F600_'", "'%ß%'", "'SS'", "'%İ%'"]
# constructs outside the subset: each must be refused before any charge
JUNK = [
    "SELECT count(*) OVER () FROM {T}",
    "SELECT sum(x) OVER (PARTITION BY g) FROM {T}",
    "SELECT count(*) FROM {T} WHERE x > (SELECT 1)",
    "SELECT count(*) FROM {T} WHERE id IN (SELECT id FROM {T})",
    "SELECT count(*) FROM (SELECT * FROM {T} LIMIT 5) s",
    "SELECT count(*) FROM (SELECT g, count(*) FROM {T} GROUP BY g) s",
    "SELECT count(*) FROM (SELECT DISTINCT g FROM {T}) s",
    "SELECT count(*) FROM (SELECT random() AS r FROM {T}) s",
    "SELECT sum(y) FROM (SELECT fz_qown.twice(x) AS y FROM {T}) s",
    "WITH w AS (SELECT * FROM {T} WHERE fz_qown.twice(x) > 1) SELECT count(*) FROM w",
    "WITH w AS (SELECT * FROM {T}) SELECT count(*) FROM w a, w b",
    "WITH w AS MATERIALIZED (SELECT * FROM {T}) SELECT count(*) FROM w",
    "WITH RECURSIVE w AS (SELECT id FROM {T} UNION ALL SELECT id + 1 FROM w WHERE id < 0) SELECT count(*) FROM w",
    "WITH w AS (SELECT * FROM {T}) SELECT x FROM w",
    "SELECT count(s) FROM (SELECT x FROM {T}) s",
    "SELECT count(*) FROM {T} UNION SELECT 1",
    "SELECT count(*) FROM {T} UNION ALL SELECT count(*) FROM {T}",
    "SELECT count(*) FROM {T} INTERSECT SELECT 1",
    "SELECT DISTINCT g FROM {T} GROUP BY g",
    "SELECT count(DISTINCT g) FROM {T}",
    "SELECT count(*) FROM {T} a, {T} b",
    "SELECT count(*) FROM {T} a JOIN pg_class c ON true",
    "SELECT count(*) FROM {T} a LEFT JOIN {T} b USING (id)",
    "SELECT sum(fz_qown.twice(x)) FROM {T}",
    "SELECT count(*) FROM {T} WHERE fz_qown.twice(x) > 1",
    "SELECT count(*) FROM {T} WHERE x OPERATOR(fz_qown.+#) 1 > 0",
    "SELECT sum(x OPERATOR(fz_qown.+#) 1) FROM {T}",
    "SELECT fz_qown.twice(count(*)) FROM {T}",
    "SELECT count(*) FROM {T} WHERE x > random()",
    "SELECT count(*), random() FROM {T}",
    "SELECT count(*) FROM {T} WHERE ts < clock_timestamp()",
    "SELECT count(*) FROM {T} HAVING random() > 0.5",
    "SELECT count(*) FROM {T} WHERE ctid > '(0,1)'",
    "SELECT ctid, count(*) FROM {T} GROUP BY ctid",
    "SELECT count(*) FROM {T} WHERE xmin::text::int > 0",
    "SELECT tableoid, count(*) FROM {T} GROUP BY tableoid",
    "SELECT count(*) FROM {T} WHERE {T} IS NULL",
    "SELECT * FROM {T}",
    "SELECT x FROM {T}",
    "SELECT count(*) FROM {T} FOR UPDATE",
    "SELECT count(*) FILTER (WHERE random() > 0.5) FROM {T}",
    "SELECT g, count(*) FROM {T} GROUP BY ROLLUP (g)",
    "SELECT count(*) FROM {T} TABLESAMPLE BERNOULLI (50)",
    "SELECT generate_series(1, 2), count(*) FROM {T}",
    "SELECT string_agg(s, ',') FROM {T}",
    "SELECT count(*) FROM {T} WHERE s ~ 'a.*'",
    "SELECT count(*) FROM {T} WHERE md5(s) = 'x'",
    "SELECT count(*) FROM {T} WHERE pg_sleep(0.01) IS NULL",
    "SELECT count(*) FROM {T} WHERE x::text = '1'",
    "SELECT count(*) FROM {T} WHERE txid_current() > 0",
    "SELECT count(*) FROM {T} WHERE s = current_user",
    "SELECT count(*) FROM {T} WHERE nextval('fz_qseq') > 0",
    "SELECT count(*) FROM {T} WHERE set_config('dpobj.query_epsilon', '0', true) IS NULL",
    "SELECT count(*) FROM {T} WHERE x = ANY (ARRAY[x])",
    "SELECT count(*) INTO TEMP fz_tmp FROM {T}",
    "SELECT corr(x, n) FROM {T}",
    "SELECT count(*) FROM {T} WHERE to_char(d, 'YYYY') = '2024'",
    "SELECT count(*) FROM {T} WHERE (SELECT true)",
]


class Gen:
    """The text of case c: random.Random((SEED, c)) draws it; {T} names the table."""

    def __init__(self, case):
        self.r = random.Random("%d/%d" % (SEED, case))

    def pick(self, xs):
        return self.r.choice(xs)

    def num(self, depth=0):
        r = self.r.random()
        if depth > 3 or r < 0.35:
            return self.pick(NUMCOLS) if self.r.random() < 0.7 else self.pick(NUMCONST)
        k = self.r.randrange(12)
        a = lambda: self.num(depth + 1)
        if k < 4:
            return "(%s %s %s)" % (a(), self.pick(["+", "-", "*", "/", "/", "+", "%"]), a())
        if k == 4:
            return "(- %s)" % a()
        if k == 5:
            return "abs(%s)" % a()
        if k == 6:
            return "CASE WHEN %s THEN %s ELSE %s END" % (self.cond(depth + 1), a(), a())
        if k == 7:
            return "coalesce(%s, %s)" % (a(), a())
        if k == 8:
            return "(%s)::%s" % (a(), self.pick(["int", "smallint", "bigint", "numeric", "float8",
                                                 "real", "numeric(5,2)", "text::numeric"]))
        if k == 9:
            return "extract(%s FROM %s)" % (self.pick(FIELDS), self.pick(["d", "ts", "tz"] + DATECONST[:2]))
        if k == 10:
            return "date_part('%s', %s)" % (self.pick(FIELDS), self.pick(["d", "ts"]))
        return self.pick(["(x / (n - n))", "(1 / (k - k))", "(m * m * m)", "(x * 1e308)",
                          "extract(epoch FROM date_trunc('day', ts))", "(n ^ 1000)",
                          "(d - date '2024-01-01')", "(d - d)", "(%s - d)" % self.pick(DATECONST), "length(s)", "(f4 * 1e38)", "(m % 0)",
                          "(2 * 3 + 1)", "(abs(-2.5) * 2)", "(1 / 0)", "(2147483647 + 1)",
                          "(1e308::float8 * 10)", "round(2.567, 1)", "nullif(x, 0)", "nullif(n, m)",
                          "nullif(g, 'a')", "(b)::int", "(x > n)::int"])

    def cond(self, depth=0):
        k = self.r.randrange(14 if depth < 3 else 9)
        if k == 0:
            return "%s %s %s" % (self.num(depth + 1), self.pick(["=", "<>", "<", "<=", ">", ">="]),
                                 self.num(depth + 1))
        if k == 1:
            return "%s IN (%s)" % (self.pick(TEXTCOLS), ", ".join(
                self.pick(TEXTCONST) for _ in range(self.r.randrange(1, 4))))
        if k == 2:
            return "%s %sIN (%s)" % (self.pick(NUMCOLS), self.pick(["", "NOT "]), ", ".join(
                self.pick(NUMCONST) for _ in range(self.r.randrange(1, 4))))
        if k == 3:
            return "%s %sBETWEEN %s AND %s" % (self.pick(NUMCOLS), self.pick(["", "NOT "]),
                                               self.pick(NUMCONST), self.pick(NUMCONST))
        if k == 4:
            return "%s IS %sNULL" % (self.pick(NUMCOLS + TEXTCOLS + ["d", "ts", "b"]),
                                     self.pick(["", "NOT "]))
        if k == 5:
            return "%s %s %s" % (self.pick(TEXTCOLS), self.pick(["LIKE", "ILIKE", "NOT LIKE",
                                                                 "NOT ILIKE"]), self.pick(TEXTCONST))
        if k == 6:
            return "%s %s %s%s" % (self.pick(TEXTCOLS), self.pick(["=", "<>", "<", ">=", ">"]),
                                   self.pick(TEXTCONST),
                                   self.pick(["", "", " COLLATE \"C\"", " COLLATE \"en-x-icu\"",
                                              " COLLATE \"und-x-icu\""]))
        if k == 7:
            return "%s %s %s" % (self.pick(["d", "ts"]), self.pick(["<", ">=", "=", "<>"]),
                                 self.pick(DATECONST + TSCONST + DATEEXPR))
        if k == 8:
            return self.pick(["row(x, n) = row(1, 2)", "b", "NOT b", "b IS TRUE", "b = true", "true", "false", "NULL::bool"])
        a = lambda: self.cond(depth + 1)
        if k in (9, 10):
            return "(%s %s %s)" % (a(), self.pick(["AND", "OR"]), a())
        if k == 11:
            return "NOT (%s)" % a()
        if k == 12:
            return "(%s) IS NOT TRUE" % a() if self.r.random() < 0.3 else "(%s AND %s AND %s)" % (a(), a(), a())
        return "coalesce(%s, %s)" % (a(), self.pick(["true", "false"]))

    def tcond(self, depth=0):
        """A condition over text columns only, where dpobj answers as PostgreSQL does."""
        k = self.r.randrange(9 if depth < 2 else 6)
        c = self.pick(TEXTCOLS)
        if k == 0:
            return "%s %s %s" % (c, self.pick(["=", "<>", "<", "<=", ">", ">="]), self.pick(TEXTCONST))
        if k == 1:
            return "%s %sIN (%s)" % (c, self.pick(["", "NOT "]), ", ".join(
                self.pick(TEXTCONST) for _ in range(self.r.randrange(1, 4))))
        if k in (2, 3):
            return "%s %s %s" % (c, self.pick(["LIKE", "ILIKE", "NOT LIKE", "NOT ILIKE"]),
                                 self.pick(TEXTCONST + LIKEPAT))
        if k == 4:
            return "%s IS %sNULL" % (c, self.pick(["", "NOT "]))
        if k == 5:
            return self.pick(["b", "NOT b"])
        if k in (6, 7):
            return "(%s %s %s)" % (self.tcond(depth + 1), self.pick(["AND", "OR"]), self.tcond(depth + 1))
        return "NOT (%s)" % self.tcond(depth + 1)

    def agg(self):
        t = self.pick(AGGS)
        e = self.pick(BOUNDED) if self.r.random() < 0.5 else self.num(1)
        a = t.format(e=e, c=self.pick(BOUNDED if self.r.random() < 0.9 else NUMCOLS + ["d"]),
                     q=self.pick(["0.5", "0", "1", "0.01", "0.999", "1.5", "-0.1", "NULL"]))
        if self.r.random() < 0.15:                  # the rows that pass a random condition
            a += " FILTER (WHERE %s)" % self.cond()
        return a

    def select(self, params=False, plain=False):
        groups = list(self.pick(GROUPS))
        aggs = [self.agg() for _ in range(self.r.randrange(1, 4))]
        # a public lookup table (fz.qlk) joined on k: its columns grouped, filtered, aggregated
        lookup = not plain and self.r.random() < 0.25
        if lookup and self.r.random() < 0.5:
            groups.append("lname")
        if lookup and self.r.random() < 0.5:
            aggs.append(self.pick(["sum(lw)", "avg(lw * x)", "count(lw)", "sum(lw + n)", "max(lw)"]))
        outs = list(groups) + aggs
        if self.r.random() < 0.15 and not plain:
            outs.append(self.pick(["count(*) * 2", "count(*) + 1", "'label'", "42",
                                   "coalesce(%s, 0)" % aggs[0]]))
        self.r.shuffle(outs)
        q = "SELECT %s FROM {T}" % ", ".join(outs)
        keyed = None
        if lookup and self.r.random() < 0.2:        # the lookup first in FROM: the same query
            q = q.replace("FROM {T}", "FROM fz.qlk %s {T} ON lk = k" % self.pick(["JOIN", "LEFT JOIN"]), 1)
        elif lookup:
            q += " %sJOIN fz.qlk ON lk = k" % self.pick(["", "LEFT "])
            if self.r.random() < 0.2:               # in WHERE, a non-key column's equality: a filter
                q = q.replace(" %sJOIN fz.qlk ON lk = k" % ("LEFT " if " LEFT JOIN fz.qlk" in q else ""),
                              ", fz.qlk", 1)
                keyed = "lk = k AND lw = x"
            elif self.r.random() < 0.3:             # a second lookup on the first's column
                q += " %sJOIN fz.qlk2 ON ln = lname" % self.pick(["", "LEFT "])
                q = q.replace("SELECT ", "SELECT sum(lz), ", 1) if self.r.random() < 0.5 else q
            if self.r.random() < 0.3:               # USING, lk renamed k: the same join
                q = q.replace("JOIN fz.qlk ON lk = k", "JOIN fz.qlk l(k, lname, lw) USING (k)", 1)
            if self.r.random() < 0.2:               # joined again, aliased (Q7's nation n1, nation n2)
                q += " %sJOIN fz.qlk l2(lk2, lname2, lw2) ON lk2 = h" % self.pick(["", "LEFT "])
                q = q.replace("SELECT ", "SELECT %s, " % self.pick(["count(lw2)", "sum(lw2 * x)", "count(*) FILTER (WHERE lname2 = 'zero')"]), 1)
        if params:
            q += " WHERE %s" % " AND ".join(self.pcond(i) for i in range(1, params + 1))
        elif self.r.random() < 0.8:
            q += " WHERE %s" % self.cond()
        if keyed:
            q += (" AND %s" if " WHERE " in q else " WHERE %s") % keyed
        if lookup and self.r.random() < 0.4:
            q += (" AND (%s)" if " WHERE " in q else " WHERE %s") % self.pick(
                ["lname <> 'zero'", "lw > 0", "lname IS NULL", "lw < 1 OR lname LIKE 'z%'"])
        if groups:
            q += " GROUP BY %s" % ", ".join(groups)
        if plain:
            return q
        if self.r.random() < 0.2:
            q += " HAVING %s" % self.pick(["count(*) > 1", "count(*) >= 0", "%s IS NOT NULL" % aggs[0],
                                           "count(*) < 1e308"])
        if self.r.random() < 0.3:
            q += " ORDER BY %s" % self.pick(["1", "1 DESC", "count(*)"] + ([groups[0]] if groups else []))
        if self.r.random() < 0.15:
            q += " LIMIT %s" % self.pick(["0", "1", "10", "ALL", "NULL"])
        return q

    PARAMTYPES = {"x": "float8", "n": "numeric", "m": "bigint", "f4": "real", "g": "text",
                  "s": "text", "d": "date", "ts": "timestamp"}
    PARAMVALS = {"float8": ["1", "'NaN'", "'Infinity'", "'-Infinity'", "1e308", "0", "NULL"],
                 "numeric": ["1e400", "'NaN'", "1e-400", "'Infinity'", "50", "NULL"],
                 "bigint": ["9223372036854775807", "0", "-1", "NULL"],
                 "real": ["3.4e38", "'NaN'", "1e-45", "NULL"],
                 "text": ["''", "'a'", "repeat('x', 10000)", "'é'", "NULL"],
                 "date": ["'infinity'", "'4713-01-01 BC'", "'2024-02-01'", "NULL"],
                 "timestamp": ["'infinity'", "'294276-12-31 23:59:59'", "'2024-01-03'", "NULL"]}

    def wrap(self, q, p=0.2, where=True):
        """q reading {T} through a WITH query or a derived table (inlined before it compiles),
        its own WHERE sometimes, nested sometimes; or q itself"""
        if self.r.random() >= p:
            return q
        inner = "SELECT * FROM {T}"
        if where and self.r.random() < 0.3:
            inner += " WHERE %s" % self.cond()
        form = self.r.randrange(3)
        if form == 0:
            return q.replace("FROM {T}", "FROM (%s) t" % inner, 1)
        if form == 1:
            return "WITH t AS (%s) %s" % (inner, q.replace("FROM {T}", "FROM t", 1))
        return "WITH t AS (SELECT * FROM (%s) u) %s" % (inner, q.replace("FROM {T}", "FROM t", 1))

    def pcond(self, i):
        self.pcols.append(self.pick(list(self.PARAMTYPES)))
        c = self.pcols[-1]
        if self.r.random() < 0.1:           # a parameter elsewhere: refused
            return "abs(x + $%d) > 1" % i if self.PARAMTYPES[c] in ("float8", "numeric") else "%s = $%d || 'x'" % (c, i)
        return "%s %s $%d" % (c, self.pick(["=", "<>", "<", ">="]), i)

    def units(self):
        """count(DISTINCT unit) on the unit pair ({U}); another column's DISTINCT: junk."""
        groups = self.pick([[], [], ["g"], ["k"], ["b"], ["g", "b"], ["g", "k"], ["ci"], ["s"]])
        outs = list(groups) + ["count(DISTINCT s)"] + ([self.agg()] if self.r.random() < 0.5 else [])
        if self.r.random() < 0.3:                   # statistics that read no column
            outs.append(self.pick(["count(*)", "sum(1)", "avg(2)", "count(*) FILTER (WHERE true)"]))
        # joined on the unit to fz.qj<t>5 of its budget domain: its jw aggregated
        join = self.r.random() < 0.3
        if join and self.r.random() < 0.5:
            outs.append(self.pick(["sum(jw)", "count(jw)", "avg(jw + x)", "max(jw)"]))
        q = "SELECT %s FROM {U}" % ", ".join(outs)
        if join:
            q += " %sJOIN {UJ} %s" % (self.pick(["", "LEFT "]),
                                      self.pick(["ON ju = s", "j(s, jw) USING (s)"]))
        if self.r.random() < 0.5:
            q += " WHERE %s" % self.cond()
        if groups:
            q += " GROUP BY %s" % ", ".join(groups)
        if self.r.random() < 0.2:
            return "junk", [q.replace("count(DISTINCT s)", "count(DISTINCT %s)"
                                      % self.pick(["g", "x", "id", "s || ''", "upper(s)"]))]
        return "units", [q]

    def case(self):
        """(kind, [statements]) with {T} for the table and {P} for a statement name."""
        k = self.r.random()
        if k < 0.55:
            return "select", [self.wrap(self.select())]
        if k < 0.65:
            self.pcols = []
            q = self.wrap(self.select(params=self.r.randrange(1, 3)))
            types = [self.PARAMTYPES[c] for c in self.pcols]
            generic = self.r.random() < 0.3
            stmts = ["SET plan_cache_mode = force_generic_plan"] if generic else []
            stmts.append("PREPARE {P}(%s) AS %s" % (", ".join(types), q))
            for _ in range(2):
                stmts.append("EXECUTE {P}(%s)" % ", ".join(self.pick(self.PARAMVALS[t]) for t in types))
            return "prepared", stmts + ["DEALLOCATE {P}"] + (["RESET plan_cache_mode"] if generic else [])
        if k < 0.68:
            return "analyze", ["EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) %s" % self.wrap(self.select())]
        if k < 0.75:
            return "explain", ["EXPLAIN (COSTS OFF%s) %s" % (self.pick(["", ", VERBOSE"]), self.wrap(self.select()))]
        if k < 0.83:
            q = self.wrap(self.select(plain=self.r.random() < 0.8)).replace("'", "''")
            return "query", ["SELECT count(*) FROM dpobj.query('%s', %s, %s)" % (
                q, self.pick(["1", "1", "0.5", "1e-300", "1e308", "'NaN'", "0"]),
                self.pick(["0", "1e-6", "1e-6", "'NaN'"]))]
        if k < 0.87:
            return "junk", [self.pick(JUNK)]
        if k < 0.9:
            return self.units()
        # a count at a large epsilon (exact but with probability e^-1e5) against the owner's
        cond = self.tcond()
        if self.r.random() < 0.7:                   # a "where" (not a filter) for dpobj
            cond = "(%s) OR id < -1" % cond
        return "oracle", ["SET dpobj.query_epsilon = 1e5",
                          self.wrap("SELECT '#O' AS o, count(*) FROM {T} WHERE %s" % cond, 0.3, False),
                          "SET dpobj.query_epsilon = 1", "RESET ROLE",
                          "SELECT '#T', count(*) FROM {T} WHERE %s" % cond, "SET ROLE fz_qanalyst"]


def run_chunk(first, n):
    """Runs cases first..first+n-1 on both sides in one analyst session; returns
    {(case, side): [the first error's SQLSTATE or None, [errors], (ledger rows, last id)
    before, the same after, [notices and warnings]]},
    the (case, side) a lost connection ended at or None, hung."""
    lines = ["\\set VERBOSITY sqlstate", "SET statement_timeout = 20000;",
             "SET ROLE fz_qanalyst;", "SET dpobj.query_epsilon = 1;", "SET dpobj.query_delta = 1e-6;"]
    where = {}
    texts = {}
    for c in range(first, first + n):
        kind, stmts = Gen(c).case()
        pair = 1 + c % PAIRS
        for side in ("qa", "qb"):
            key = (c, side)
            texts[key] = (kind, [s.replace("{T}", "fz.%s%d" % (side, pair)).replace("{P}", "fzq_%s_%d" % (side, c))
                                 .replace("{U}", "fz.%s5" % side).replace("{UJ}", "fz.qj%s5" % side)
                                 for s in stmts])
            lines.append("\\echo '#@ %d %s'" % key)
            lines.append("SELECT '#L', count(*), coalesce(max(id), 0) FROM dpobj.ledger;")
            for s in texts[key][1]:
                where[len(lines) + 1] = key
                lines.append(s.replace("\n", " ") + ";")
            lines.append("SELECT '#L', count(*), coalesce(max(id), 0) FROM dpobj.ledger;")
    # from a file: psql names the line of each error
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
        f.write("\n".join(lines) + "\n")
    try:
        p = subprocess.run(["psql", "-X", "-q", "-At", "-d", DB, "-f", f.name], capture_output=True,
                           text=True, timeout=120 + 40 * n)
    except subprocess.TimeoutExpired:
        return {}, texts, None, True
    finally:
        os.unlink(f.name)
    res, cur = {}, None
    for line in p.stdout.splitlines():
        if line.startswith("#@ "):
            c, side = line[3:].split()
            cur = (int(c), side)
            res[cur] = [None, [], None, None, [], {}]
        elif line[:3] in ("#O|", "#T|") and cur is not None:  # a count: dpobj's, the truth
            res[cur][5][line[1]] = line[3:]
        elif line.startswith("#L|") and cur is not None:     # the ledger's rows, its last id
            res[cur][2 if res[cur][2] is None else 3] = tuple(int(x) for x in line[3:].split("|"))
    for m in re.finditer(r"^psql:[^:]*:(\d+): ERROR:\s+(\w+)", p.stderr, re.M):
        key = where.get(int(m.group(1)))
        if key in res:
            res[key][1].append(m.group(2))
            res[key][0] = res[key][0] or m.group(2)
    # the messages besides errors (their SQLSTATEs): alike on both neighbours
    for m in re.finditer(r"^psql:[^:]*:(\d+): (NOTICE|WARNING|INFO):\s+(\w+)", p.stderr, re.M):
        key = where.get(int(m.group(1)))
        if key in res:
            res[key][4].append(m.group(2) + " " + m.group(3))
    lost = None
    if LOST.search(p.stderr) or p.returncode not in (0, 1):
        lost = cur
        res.pop(cur, None)
    return res, texts, lost, False


def main():
    t0 = time.time()
    print("# private-query fuzz: seed %d, %d cases, each on both tables of a neighbouring pair"
          % (SEED, CASES), flush=True)
    failures, tally, charged = [], collections.Counter(), []
    log = os.environ.get("DPOBJ_PGLOG")
    log_start = os.path.getsize(log) if log and os.path.exists(log) else 0
    first = 0
    while first < CASES:
        n = min(CHUNK, CASES - first)
        res, texts, lost, hung = run_chunk(first, n)
        if hung:
            fuzzlib.restart()
            fuzzlib.wait_up(DB)
            failures.append("cases %d..%d: no answer within the wall time" % (first, first + n - 1))
            first += n
            continue
        for c in range(first, first + n):
            outs = {}
            for side in ("qa", "qb"):
                key = (c, side)
                kind, stmts = texts[key]
                show = "\n#   " + "\n#   ".join(s[:600] for s in stmts)
                if key not in res:
                    if lost == key:
                        failures.append("case %d on %s: lost connection (a crash)%s" % (c, side, show))
                    continue
                err, errs, before, after, notes, counts = res[key]
                if before is None or after is None:
                    failures.append("case %d on %s: the ledger was not read%s" % (c, side, show))
                    continue
                charges = after[0] - before[0]          # (ids are not dense)
                outs[side] = ("ok" if err is None else err) + "".join(", " + n for n in notes)
                for n in notes:
                    tally["(%s)" % n] += 1
                tally["%s %s" % (kind, "ok" if err is None else err)] += 1
                bad = [e for e in errs if e in BAD]
                if bad:
                    failures.append("case %d on %s: internal error %s%s" % (c, side, bad[0], show))
                if kind != "junk" and "42501" in errs:
                    failures.append("case %d on %s: refused 42501 (a permission refusal)%s" % (c, side, show))
                if kind in ("junk", "explain") and charges:
                    failures.append("case %d on %s: %s charged %d%s" % (c, side, kind, charges, show))
                if kind == "junk" and err is None:
                    failures.append("case %d on %s: a construct outside the subset was accepted%s"
                                    % (c, side, show))
                if kind == "oracle" and "O" in counts:
                    tally["(oracle counts compared)"] += 1
                    if counts["O"] != counts.get("T"):
                        failures.append("case %d on %s: dpobj counts %s rows, PostgreSQL %s%s"
                                        % (c, side, counts["O"], counts.get("T"), show))
                if kind in ("select", "query", "analyze", "oracle", "units") and err is None and charges != 1 and \
                        not (charges == 0 and "LIMIT 0" in stmts[0]):       # (never run)
                    failures.append("case %d on %s: accepted with %d charges%s" % (c, side, charges, show))
                if charges and err is not None and kind != "prepared":
                    tally["(charged, then the caller's post-processing failed)"] += 1
                if charges:
                    charged.append((before[1], after[1], c, side, show))
            if lost is not None and lost[0] == c:
                break
            if len(outs) == 2 and outs["qa"] != outs["qb"]:
                failures.append("case %d: the neighbours' outcomes differ: %s on qa, %s on qb%s"
                                % (c, outs["qa"], outs["qb"], "\n#   " + "\n#   ".join(texts[(c, "qa")][1])))
        if lost is not None:
            fuzzlib.wait_up(DB)
            first = lost[0] + 1
        else:
            first += n
    # every charge's outcome: released (a charged run must not fail)
    time.sleep(1)
    rc, out, err = fuzzlib.psql(DB, "SELECT id, outcome, coalesce(detail, '') FROM dpobj.ledger "
                                    "WHERE relation::text LIKE 'fz.q%' ORDER BY id")
    outcomes = collections.Counter()
    for line in out.splitlines():
        i, oc, detail = (line.split("|", 2) + ["", ""])[:3]
        outcomes[oc] += 1
        for lo, hi, c, side, show in (charged if oc != "released" else []):
            if lo < int(i) <= hi:
                failures.append("case %d on %s: charged, outcome %s (%s)%s" % (c, side, oc, detail[:200], show))
    if rc != 0:
        failures.append("the ledger could not be read: %s" % err.strip()[:300])
    if log and os.path.exists(log):            # what the server logged during the campaign
        with open(log, errors="replace") as f:
            f.seek(log_start)
            bad = [l.strip() for l in f if re.search(r"PANIC|TRAP:|terminated by signal|segmentation", l)]
        if bad:
            failures.append("the server log: %s" % bad[0][:300])
    for f in failures[:15]:
        print("not ok - %s" % f)
    if len(failures) > 15:
        print("not ok - %d failures more" % (len(failures) - 15))
    print("# outcomes: %s" % ", ".join("%s %d" % kv for kv in sorted(tally.items())))
    print("# ledger outcomes: %s" % ", ".join("%s %d" % kv for kv in sorted(outcomes.items())))
    runs = sum(v for k, v in tally.items() if not k.startswith("("))     # (not tallies of runs)
    accepted = sum(v for k, v in tally.items() if k.endswith(" ok") and not k.startswith("junk"))
    enough = runs >= 2 * CASES and accepted * 10 >= runs       # a tenth at least
    print("%s - %d runs of %d cases: the accepted ones released, the rest refused before any charge, "
          "neighbours alike, no crash or internal error" % ("ok" if not failures else "not ok", runs, CASES))
    print("%s - the cases reach the rewritten path (%d accepted of %d runs)"
          % ("ok" if enough else "not ok", accepted, runs))
    print("# %.0f s" % (time.time() - t0))
    passed = int(not failures) + int(enough)
    print("%d passed, %d failed" % (passed, len(failures) + int(not enough)))
    return 1 if failures or not enough else 0


if __name__ == "__main__":
    sys.exit(main())
