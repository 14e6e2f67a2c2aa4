#!/usr/bin/env python3
"""tests/packages/check.py — does a fresh Debian 12 machine get everything the build and
the tests use from the packages scripts/common.sh installs?

A machine that already built something (Citus, another extension) may have packages a new
one lacks, and a build that finds its headers there passes CI and fails every new user.
So this check asks, for each file the build and the tests use, which installed package
owns it (dpkg's file lists), and whether that package is in the Depends/Pre-Depends
closure of the declared list (alternatives: the installed one; Recommends are not
followed: the scripts install with --no-install-recommends).

The files:
  - every header the C sources include (src/**/*.c with the extension's include path,
    tests/unit/*.c with the unit tests' path), listed by `gcc -M`: a header that cannot
    be found fails too;
  - the programs and server files the test suite runs (REQUIRED_FILES below).

Usage: check.py [--power] — with --power, also show that the check fails with any one
declared package taken off the list, unless the rest of the list pulls that package in
anyway (make and gcc come with build-essential, say).  Prints "ok"/"not ok" lines
and, last, "N passed, M failed".  Run from the repository root.
"""
import glob, os, re, subprocess, sys

PG_CONFIG = os.environ.get("PG_CONFIG", "/usr/lib/postgresql/15/bin/pg_config")


def pg(flag):
    return subprocess.check_output([PG_CONFIG, flag], text=True).strip()


# what the suite runs beyond the compiler: pg_regress, the server, pgTAP and pg_prove,
# pg_cron (tests/jobs), python3 (tests/docs, tests/audit, tests/fuzz), make and the C compiler
# with its sanitizer runtimes (tests/fuzz/sanitize.sh)
def required_files():
    bindir, share, pkglib = pg("--bindir"), pg("--sharedir"), pg("--pkglibdir")
    san = [os.path.realpath(subprocess.check_output(["gcc", "-print-file-name=%s" % lib],
                                                    text=True).strip())
           for lib in ("libasan.so", "libubsan.so")]
    return [f"{bindir}/postgres", f"{bindir}/initdb", f"{bindir}/pg_ctl", f"{bindir}/psql",
            f"{pkglib}/pgxs/src/test/regress/pg_regress",
            f"{share}/extension/pgtap.control", "/usr/bin/pg_prove",
            f"{share}/extension/pg_cron.control", f"{pkglib}/pg_cron.so",
            "/usr/bin/python3", "/usr/bin/make", "/usr/bin/gcc"] + san


def declared_packages():
    out = subprocess.check_output(
        ["bash", "-c", 'source scripts/common.sh >/dev/null 2>&1; echo "${DPOBJ_PACKAGES[@]}"'],
        text=True)
    return out.split()


def dpkg_status():
    """installed packages: name -> (dependency groups, provided names)"""
    pkgs, provides = {}, {}
    for stanza in open("/var/lib/dpkg/status", encoding="utf-8").read().split("\n\n"):
        fields, key = {}, None
        for line in stanza.splitlines():
            if line.startswith((" ", "\t")) and key:
                fields[key] += " " + line.strip()
            elif ":" in line:
                key, val = line.split(":", 1)
                fields[key] = val.strip()
        if "Package" not in fields or not fields.get("Status", "").endswith(" installed"):
            continue
        name = fields["Package"]
        deps = []
        for f in ("Pre-Depends", "Depends"):
            for group in filter(None, (g.strip() for g in fields.get(f, "").split(","))):
                deps.append([re.split(r"[ (:]", alt.strip(), 1)[0] for alt in group.split("|")])
        pkgs[name] = deps
        for p in filter(None, (p.strip() for p in fields.get("Provides", "").split(","))):
            provides.setdefault(re.split(r"[ (:]", p, 1)[0], []).append(name)
    return pkgs, provides


def closure(roots, pkgs, provides):
    """the installed packages that the roots pull in, and the roots that are not installed"""
    seen, todo, absent = set(), list(roots), []
    essential = [l.split()[0] for l in subprocess.check_output(
        ["dpkg-query", "-W", "-f=${Package} ${Essential}\n"], text=True).splitlines()
        if l.endswith(" yes")]
    todo += essential
    while todo:
        p = todo.pop()
        cands = [p] if p in pkgs else provides.get(p, [])
        if not cands:
            if p in roots:
                absent.append(p)
            continue
        for c in cands:
            if c in seen:
                continue
            seen.add(c)
            for group in pkgs[c]:
                inst = [a for a in group if a in pkgs or a in provides]
                if inst:
                    todo.append(inst[0])
    return seen, absent


def owners():
    """file path -> owning package, from dpkg's file lists"""
    own = {}
    for lst in glob.glob("/var/lib/dpkg/info/*.list"):
        name = os.path.basename(lst)[:-5].split(":")[0]
        for line in open(lst, encoding="utf-8", errors="replace"):
            own.setdefault(line.rstrip("\n"), name)
    return own


def headers():
    """(headers the sources include, [(source, error)] for sources gcc cannot preprocess)"""
    cppflags = pg("--cppflags").split()
    ext_inc = ["-Isrc"] + [
        f"-I{pg('--includedir-server')}", f"-I{pg('--includedir')}/internal"]
    jobs = [(f, ext_inc + cppflags) for f in sorted(glob.glob("src/*/*.c"))]
    jobs += [(f, ["-Isrc", "-D_POSIX_C_SOURCE=200809L"]) for f in sorted(glob.glob("tests/unit/*.c"))]
    found, broken = set(), []
    for src, flags in jobs:
        r = subprocess.run(["gcc", "-M", "-std=gnu99"] + flags + [src], capture_output=True, text=True)
        if r.returncode != 0:
            err = [l for l in r.stderr.splitlines() if "error" in l] or ["?"]
            broken.append((src, err[0]))
            continue
        for tok in r.stdout.replace("\\\n", " ").split():
            if tok.startswith("/usr/"):
                found.add(tok)
    return found, broken


def verdict(declared, pkgs, provides, own, hdrs, broken, files):
    """[(description, ok, detail)] for one declared list"""
    have, absent = closure(declared, pkgs, provides)
    outside, unowned = {}, []
    for f in files:
        pkg = own.get(f) or own.get(os.path.realpath(f))
        if pkg is None:
            unowned.append(f)
        elif pkg not in have:
            outside.setdefault(pkg, os.path.basename(f))
    return [
        ("every declared package is installed", not absent, " ".join(absent)),
        (f"every C source preprocesses ({len(hdrs)} system headers)", not broken,
         "; ".join(f"{s}: {e}" for s, e in broken[:5])),
        ("every header and test file belongs to an installed package", not unowned,
         " ".join(unowned[:5])),
        ("every header and test file comes from the declared packages' Depends closure",
         not outside, " ".join(f"{p}({f})" for p, f in sorted(outside.items())[:8])),
    ]


def main(argv):
    declared = declared_packages()
    pkgs, provides = dpkg_status()
    own = owners()
    hdrs, broken = headers()
    files = sorted(hdrs) + required_files()
    passed = failed = 0
    for desc, ok, detail in verdict(declared, pkgs, provides, own, hdrs, broken, files):
        print(("ok - " if ok else "not ok - ") + desc + ("" if ok or not detail else ": " + detail))
        passed, failed = passed + ok, failed + (not ok)
    if "--power" in argv:
        # the check has power: with any one package taken off the list, it fails
        for p in declared:
            rest = [q for q in declared if q != p]
            if p in closure(rest, pkgs, provides)[0]:
                ok, desc = True, f"{p} comes with the rest of the list too (taking it off changes nothing)"
            else:
                ok = not all(r[1] for r in verdict(rest, pkgs, provides, own, hdrs, broken, files))
                desc = f"without {p} on the list the check fails" + ("" if ok else ": it still passes")
            print(("ok - " if ok else "not ok - ") + desc)
            passed, failed = passed + ok, failed + (not ok)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
