#!/usr/bin/python3
"""Discretize the bench tables with declared (public) domains, as the synthesizer's
columns would be declared in SQL: a text column by its levels (NULL a level of its own),
a numeric by [lo, hi] cut into equal-width declared bins (values outside clamped to the
end bins).  Writes OUT/<table>.{train,test}.csv (one integer code per column, a header
of names) and OUT/<table>.domain (one "name levels kind" line per column, kind cat or num).

usage: prep.py REPO OUTDIR"""
import csv, hashlib, os, sys

# (name, kind, arg): 'cat' -> its levels (sorted UCI values; NULL last when the
# column has missing values); 'num' -> (lo, hi, bins)
ADULT = [
    ("age", "num", (17, 90, 15)),
    ("workclass", "cat", None),
    ("fnlwgt", "num", (0, 1500000, 20)),
    ("education", "cat", None),
    ("education_num", "num", (1, 16, 16)),
    ("marital_status", "cat", None),
    ("occupation", "cat", None),
    ("relationship", "cat", None),
    ("race", "cat", None),
    ("sex", "cat", None),
    ("capital_gain", "num", (0, 99999, 20)),
    ("capital_loss", "num", (0, 4356, 20)),
    ("hours_per_week", "num", (1, 99, 10)),
    ("native_country", "cat", None),
    ("income_gt_50k", "cat", None),
]
BANK = [
    ("age", "num", (18, 95, 10)),
    ("job", "cat", None),
    ("marital", "cat", None),
    ("education", "cat", None),
    ("default", "cat", None),
    ("balance", "num", (-2000, 10000, 12)),
    ("housing", "cat", None),
    ("loan", "cat", None),
    ("contact", "cat", None),
    ("day", "num", (1, 31, 8)),
    ("month", "cat", None),
    ("duration", "num", (0, 3000, 10)),
    ("campaign", "num", (1, 63, 8)),
    ("pdays", "num", (-1, 999, 10)),
    ("previous", "num", (0, 50, 10)),
    ("poutcome", "cat", None),
    ("y", "cat", None),
]


def read_adult(path):
    rows = []
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("|"):
            continue
        f = [x.strip() for x in line.split(",")]
        f[-1] = f[-1].rstrip(".")
        rows.append([None if x == "?" else x for x in f])
    return rows


def read_bank(path):
    with open(path) as fh:
        r = csv.reader(fh, delimiter=";")
        next(r)
        rows = [[x for x in row] for row in r]
    # load.sql's split: the rows in md5(id::text), id order; the first 3165 train
    order = sorted(range(len(rows)), key=lambda i: (hashlib.md5(str(i + 1).encode()).hexdigest(), i + 1))
    rank = {i: k + 1 for k, i in enumerate(order)}
    train = [rows[i] for i in range(len(rows)) if rank[i] <= 3165]
    test = [rows[i] for i in range(len(rows)) if rank[i] > 3165]
    return train, test


def domains(spec, allrows):
    out = []
    for j, (name, kind, arg) in enumerate(spec):
        if kind == "cat":
            vals = sorted({r[j] for r in allrows if r[j] is not None})
            if any(r[j] is None for r in allrows):
                vals.append(None)
            out.append(vals)
        else:
            out.append(arg)
    return out


def code(spec, dom, row):
    c = []
    for j, (name, kind, arg) in enumerate(spec):
        v = row[j]
        if kind == "cat":
            c.append(dom[j].index(v))
        else:
            lo, hi, b = arg
            x = float(v)
            k = int((x - lo) / (hi - lo) * b) if hi > lo else 0
            c.append(min(max(k, 0), b - 1))
    return c


def write(out, table, spec, dom, train, test):
    with open(os.path.join(out, table + ".domain"), "w") as fh:
        for j, (name, kind, arg) in enumerate(spec):
            fh.write("%s %d %s\n" % (name, len(dom[j]) if kind == "cat" else arg[2], kind))
    for split, rows in (("train", train), ("test", test)):
        with open(os.path.join(out, "%s.%s.csv" % (table, split)), "w") as fh:
            fh.write(",".join(n for n, _, _ in spec) + "\n")
            for r in rows:
                fh.write(",".join(str(x) for x in code(spec, dom, r)) + "\n")


def main():
    repo, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    tr = read_adult(os.path.join(repo, "data/adult/adult.data"))
    te = read_adult(os.path.join(repo, "data/adult/adult.test"))
    write(out, "adult", ADULT, domains(ADULT, tr + te), tr, te)
    tr, te = read_bank(os.path.join(repo, "data/bank_marketing/bank.csv"))
    write(out, "bank", BANK, domains(BANK, tr + te), tr, te)


if __name__ == "__main__":
    main()
