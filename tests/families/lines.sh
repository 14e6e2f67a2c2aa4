#!/usr/bin/env bash
# tests/families/lines.sh — every family's harness lines (tests/families/README), in the
# registry's order: the families of DP_FAMILIES in src/families/registry.c.
#   bash tests/families/lines.sh SECTION   prints each family's [SECTION] (comments kept)
# Sourced, it defines family_names, family_lines SECTION, zcdp_run MECH OPTS,
# neighbour_lines (the [neighbours] lines, approximate-DP ones first) and mechanism_firsts.
FAMILIES_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

family_names() {
    sed -n 's/^#define DP_FAMILIES(X) //p' "$FAMILIES_DIR/../../src/families/registry.c" |
        grep -oE 'X\([a-z0-9_]+\)' | sed 's/^X(//; s/)$//'
}

family_lines() { # SECTION: the section's lines of every family; fails on a missing file
    local f
    for f in $(family_names); do
        [[ -f "$FAMILIES_DIR/$f.txt" ]] || { echo "tests/families/$f.txt: missing" >&2; return 1; }
        awk -v s="[$1]" '/^\[[a-z]+\]$/ { on = ($0 == s); next } on' "$FAMILIES_DIR/$f.txt"
    done
}

# the runs charged in zCDP (mechanism_cost; noisysgd with "tune" is approximate DP): once a
# budget has composed one it refuses approximate-DP runs (docs/PRIVACY.md)
zcdp_run() { # MECH OPTS
    [[ ( $1 == noisysgd && $2 != *'"tune":'* ) || $1 == passglm || $1 == linear ||
       $1 == noisysgd_multiclass || $1 == ebm || $1 == gbdt ||
       ( ($1 == logistic || $1 == logistic_multiclass) && $2 == *'"method":"output"'* ) ]]
}

# "name mechanism output options [label]" lines of every family, those charged in zCDP
# last (one analyst's budget runs them all, in this order)
neighbour_lines() {
    local lines l _n mech _k opts zcdp=()
    lines=$(family_lines neighbours | grep -vE '^[[:space:]]*(#|$)') || return 1
    while IFS= read -r l; do
        read -r _n mech _k opts _ <<<"$l"
        if zcdp_run "$mech" "$opts"; then zcdp+=("$l"); else printf '%s\n' "$l"; fi
    done <<<"$lines"
    [[ ${#zcdp[@]} -eq 0 ]] || printf '%s\n' "${zcdp[@]}"
}

# of the neighbour_lines on stdin, each mechanism's first: a harness that runs every line
# one way runs these another way (a job wraps the run train() runs)
mechanism_firsts() { awk '!seen[$2]++'; }

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    set -euo pipefail
    [[ $# -eq 1 ]] || { echo "usage: $0 SECTION" >&2; exit 2; }
    family_lines "$1"
fi
