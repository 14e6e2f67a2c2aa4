#!/usr/bin/env bash
# tests/docs/run.sh — the source tree and the documents agree (tests/docs/structure.py):
# paths the docs name exist, no process history ("issue N") in code or docs, the layout in
# docs/ARCHITECTURE.md covers every folder and file, src/core stays plain C, and no include
# or call circle; and the documents stay within their size limits and every document and
# heading cited exists (tests/docs/limits.py); a throwaway family needs no edit outside its
# own places (tests/docs/family.py: needs pg_config, no server).  Needs no server.
# Last line: "N passed, M failed".
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
passed=0 failed=0 rc=0
for t in tests/docs/structure.py tests/docs/limits.py tests/docs/family.py; do
    out=$(python3 "$t") || rc=1
    printf '%s\n' "$out" | sed '$d'
    last=$(tail -n 1 <<<"$out")
    if [[ "$last" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
        passed=$((passed + BASH_REMATCH[1])) failed=$((failed + BASH_REMATCH[2]))
    else
        failed=$((failed + 1)); echo "not ok - $t ran to the end"
    fi
done
echo "$passed passed, $failed failed"
[[ $failed -eq 0 && $rc -eq 0 ]]
