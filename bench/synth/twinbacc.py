#!/usr/bin/python3
"""The booster of score.py on a twin written by dpobj.synthesize() (bench only).

  twinbacc.py REPO TABLE TWIN.csv

TABLE is adult or bank; TWIN.csv the twin of the training split (prep.py's split: Adult's
train file, bank's first 3 165 rows in md5(id) order) with a header of column names.  Codes
the twin as prep.py codes the real rows (declared domains; a NULL of a text column as its
NULL level, an invented one as its first level, as a numeric's NULL its first bin), trains score.py's booster on it
and prints "bacc=... auc=..." on the real test split (auc: the booster's ROC AUC there)."""
import csv, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import prep  # noqa: E402
import score  # noqa: E402
import numpy as np  # noqa: E402


def twin_rows(path, spec):
    with open(path) as fh:
        r = csv.DictReader(fh)
        rows = []
        for row in r:
            out = []
            for name, kind, _ in spec:
                v = row[name]
                if v == "":
                    v = None
                elif name == "income_gt_50k":  # the boolean as text
                    v = ">50K" if v == "true" else "<=50K"
                out.append(v)
            rows.append(out)
    return rows


def main():
    repo, table, twin = sys.argv[1:4]
    if table == "adult":
        spec = prep.ADULT
        tr = prep.read_adult(os.path.join(repo, "data/adult/adult.data"))
        te = prep.read_adult(os.path.join(repo, "data/adult/adult.test"))
        target = "income_gt_50k"
    else:
        spec = prep.BANK
        tr, te = prep.read_bank(os.path.join(repo, "data/bank_marketing/bank.csv"))
        target = "y"
    dom = prep.domains(spec, tr + te)
    syn = []
    for row in twin_rows(twin, spec):
        c = []
        for j, (name, kind, arg) in enumerate(spec):
            if kind == "cat":
                c.append(dom[j].index(row[j]) if row[j] in dom[j] else 0)
            elif row[j] is None:
                c.append(0)
            else:
                c.append(prep.code([spec[j]], [dom[j]], [row[j]])[0])
        syn.append(c)
    test = np.array([prep.code(spec, dom, r) for r in te], dtype=np.int64)
    sizes = [len(dom[j]) if k == "cat" else a[2] for j, (_, k, a) in enumerate(spec)]
    kinds = [k for _, k, _ in spec]
    t = [n for n, _, _ in spec].index(target)
    syn = np.array(syn, dtype=np.int64)
    print("bacc=%.4f auc=%.4f rows=%d" % (score.bacc(syn, test, t, sizes, kinds),
                                          auc(syn, test, t, sizes, kinds), len(syn)))


def auc(train, test, target, sizes, kinds):
    """The same booster's ROC AUC on the test split (its ranking, free of the 0.5 threshold)."""
    from sklearn.ensemble import GradientBoostingClassifier
    from sklearn.metrics import roc_auc_score
    y = train[:, target]
    if len(np.unique(y)) < 2:
        return 0.5
    clf = GradientBoostingClassifier(random_state=0).fit(score.features(train, target, sizes, kinds), y)
    p = clf.predict_proba(score.features(test, target, sizes, kinds))[:, 1]
    return float(roc_auc_score(test[:, target] == y.max(), p))


if __name__ == "__main__":
    main()
