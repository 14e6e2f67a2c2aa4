#!/usr/bin/env bash
# tests/docs/run.sh — the source tree and the documents agree (tests/docs/structure.py):
# paths the docs name exist, no process history ("issue N") in code or docs, the layout in
# docs/ARCHITECTURE.md covers every folder and file, src/core stays plain C, and no include
# or call circle.  Needs no server.  Last line: "N passed, M failed".
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
exec python3 tests/docs/structure.py
