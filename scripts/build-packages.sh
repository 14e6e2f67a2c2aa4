#!/usr/bin/env bash
# scripts/build-packages.sh — Debian packages of dpobj, one per PostgreSQL major version
# (postgresql-<major>-dpobj), built with pg_buildext from debian/.
#
#   bash scripts/build-packages.sh                 # as root on Debian: for this machine's
#                                                  # PostgreSQL (12: 15, 13: 17, unstable: 18)
#   bash scripts/build-packages.sh --fresh bookworm trixie sid
#                                                  # each in a brand-new Debian root
#                                                  # (../shared/tools/fresh-debian, from a
#                                                  # clone of HEAD: commit first)
#
# Here: installs the build dependencies (postgresql-server-dev-all, debhelper, GLPK, GSL),
# writes debian/control for the supported major versions (pg_buildext updatecontrol), runs
# dpkg-buildpackage -b and moves the .deb files into DPOBJ_PKG_OUT (default: the parent
# directory, where dpkg-buildpackage puts them).  --fresh: the .deb files of each suite in
# ${DPOBJ_PKG_OUT:-/var/tmp/dpobj-packages}/<suite>/.  Prints one line per package built
# and the seconds each build took.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"
[[ "$(id -u)" -eq 0 ]] || { echo "build-packages: run as root" >&2; exit 2; }

build_here() {
    local out="${DPOBJ_PKG_OUT:-}" start=$SECONDS
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null
    apt-get install -y -q --no-install-recommends postgresql-server-dev-all dpkg-dev debhelper \
        >/dev/null
    pg_buildext updatecontrol
    apt-get build-dep -y -q ./ >/dev/null
    # no dbgsym packages; the suite runs on the installed package (debian/rules)
    DEB_BUILD_OPTIONS="noautodbgsym nocheck" dpkg-buildpackage -us -uc -b
    local debs=()
    mapfile -t debs < <(sed -n 's/^\(postgresql-[0-9]*-dpobj_[^ ]*\.deb\) .*/\1/p' debian/files)
    [[ ${#debs[@]} -gt 0 ]] || { echo "build-packages: nothing built" >&2; exit 1; }
    if [[ -n "$out" ]]; then
        mkdir -p "$out"
        local d
        for d in "${debs[@]}"; do mv "../$d" "$out/"; done
    fi
    printf 'built %s in %ss\n' "${debs[*]}" "$((SECONDS - start))"
}

build_fresh() {
    local fresh="$REPO/../shared/tools/fresh-debian" base="${DPOBJ_PKG_OUT:-/var/tmp/dpobj-packages}"
    [[ -x "$fresh" ]] || { echo "build-packages: $fresh not found" >&2; exit 2; }
    [[ $# -gt 0 ]] || set -- bookworm trixie sid
    local suite start
    for suite in "$@"; do
        rm -rf "${base:?}/$suite"
        mkdir -p "$base/$suite"
        start=$SECONDS
        FRESH_SUITE="$suite" FRESH_OUT="$base/$suite" \
            "$fresh" env DPOBJ_PKG_OUT=/root/out bash scripts/build-packages.sh
        printf '%s: %s in %ss\n' "$suite" "$(cd "$base/$suite" && echo *.deb)" "$((SECONDS - start))"
    done
}

if [[ "${1:-}" == --fresh ]]; then
    shift
    build_fresh "$@"
else
    build_here
fi
