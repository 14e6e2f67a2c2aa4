#!/usr/bin/env bash
# scripts/readme_path.sh — print the SQL of README.md's recommended path: every ```sql block
# between the "readme-path: begin" and "readme-path: end" markers, in order.  The demo
# (scripts/demo.sh) and the docs test (tests/docs/readme.sh) run this output, so the README's
# statements are the ones that run and cannot drift from them.
set -euo pipefail
readme="${1:-$(dirname "${BASH_SOURCE[0]}")/../README.md}"
awk '/<!-- readme-path: begin -->/ { on = 1; next }
     /<!-- readme-path: end -->/   { on = 0 }
     on && /^```sql$/ { sql = 1; next }
     on && sql && /^```$/ { sql = 0; print ""; next }
     on && sql { print }' "$readme"
