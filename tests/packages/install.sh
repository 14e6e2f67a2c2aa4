#!/usr/bin/env bash
# tests/packages/install.sh — a machine with only the PostgreSQL server (no compiler, no -dev
# package) installs a postgresql-<major>-dpobj package with README.md's "Install from a
# package" commands and its demo commands (UCI Adult, the recommended path).  Prints the
# seconds from the package install to the end of the path.  Last line: "N passed, M failed".
#
#   bash tests/packages/install.sh --fresh trixie [sid bookworm]   # on the host, as root:
#        each in a brand-new Debian root (../shared/tools/fresh-debian, a clone of HEAD),
#        with the .deb files scripts/build-packages.sh --fresh left in
#        ${DPOBJ_PKG_OUT:-/var/tmp/dpobj-packages}/<suite>/
#   bash tests/packages/install.sh DEBDIR     # inside such a root (changes the machine)
#
# The root shares the host's network: the cluster listens on no TCP address, only on its
# socket (port DPOBJ_PGPORT, default 5432), and package scripts start no service
# (policy-rc.d, as in container images); the test starts and stops the cluster itself.
set -uo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$REPO"
[[ "$(id -u)" -eq 0 ]] || { echo "install.sh: run as root" >&2; exit 2; }

if [[ "${1:-}" == --fresh ]]; then
    shift
    base="${DPOBJ_PKG_OUT:-/var/tmp/dpobj-packages}" rc=0
    for suite in "$@"; do
        ls "$base/$suite"/postgresql-*-dpobj_*.deb >/dev/null 2>&1 \
            || { echo "install.sh: no package in $base/$suite (scripts/build-packages.sh --fresh $suite)" >&2; exit 2; }
        FRESH_SUITE="$suite" FRESH_OUT="$base/$suite" "$REPO/../shared/tools/fresh-debian" \
            env DPOBJ_PGPORT="${DPOBJ_PGPORT:-5432}" bash tests/packages/install.sh /root/out || rc=1
    done
    exit $rc
fi

debdir="${1:?usage: install.sh DEBDIR | --fresh SUITE...}"
deb=$(ls "$debdir"/postgresql-*-dpobj_*.deb 2>/dev/null | head -n 1)
[[ -n "$deb" ]] || { echo "install.sh: no postgresql-*-dpobj_*.deb in $debdir" >&2; exit 2; }
major=$(basename "$deb" | sed 's/^postgresql-\([0-9]*\)-dpobj_.*/\1/')
port="${DPOBJ_PGPORT:-5432}"
export DEBIAN_FRONTEND=noninteractive
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok - $1"; }
not_ok() { failed=$((failed + 1)); echo "not ok - $1"; }
check() { if [[ "$2" == "$3" ]]; then ok "$1"; else not_ok "$1 (got '$2', want '$3')"; fi; }
pgq() { (cd / && runuser -u postgres -- psql -X -q -At -v ON_ERROR_STOP=1 -p "$port" "$@"); }

printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
# README's apt-get asks before installing; the answer here is yes
echo 'APT::Get::Assume-Yes "true";' >/etc/apt/apt.conf.d/90dpobj-test-yes
trap 'pg_ctlcluster "$major" main stop -m immediate >/dev/null 2>&1' EXIT

# 1. the server only
apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "postgresql-$major" >/dev/null \
    || { echo "not ok - apt-get install postgresql-$major"; exit 1; }
pg_conftool "$major" main set listen_addresses ''
pg_conftool "$major" main set port "$port"
installed() { dpkg-query -W -f '${db:Status-Status} ${Package}\n' | awk '$1 == "installed" {print $2}' | sort; }
check "no compiler or make on the machine" "$(command -v gcc cc clang make)" ""
installed >/tmp/packages.server
echo "# -dev packages the server itself depends on: $(grep -E -- "-dev$" /tmp/packages.server | paste -sd " ")"

# 2. README.md's commands, for this major version, from the package install on
start=$(date +%s.%N)
cmds=$(awk '/<!-- package-install: begin -->/ { on = 1; next } /<!-- package-install: end -->/ { on = 0 }
            on && /^```sh$/ { sh = 1; next } on && sh && /^```$/ { sh = 0; next } on && sh { print }' README.md)
cmds=$(sed -e "s/\b17\b/$major/g" -e "s|\./postgresql-$major-dpobj_\*\.deb|$deb|" <<<"$cmds")
check "README.md's package block names the package and restarts the server" \
    "$(grep -c "apt-get install $deb\|pg_ctlcluster $major main restart" <<<"$cmds")" "2"
if bash -euxc "$cmds" >/tmp/package-install.log 2>&1; then ok "README.md's package commands run"
else not_ok "README.md's package commands run"; cat /tmp/package-install.log; fi
added=$(installed | comm -13 /tmp/packages.server - | paste -sd ' ')
echo "# the package brought: $added"
check "it brought no compiler and no -dev package" \
    "$(command -v gcc cc clang make; tr ' ' '\n' <<<"$added" | grep -E -- '-dev$|^(gcc|cpp|clang|make|binutils)')" ""
check "dpobj is preloaded" "$(pgq -c 'SHOW shared_preload_libraries')" "dpobj"
docdir=/usr/share/doc/postgresql-$major-dpobj
# (dh_compress may gzip them; dh_installchangelogs installs CHANGELOG.md as changelog)
check "the package ships README.md, CHANGELOG.md and docs/" \
    "$(ls "$docdir"/README.md* "$docdir"/changelog.gz "$docdir"/docs/README.md* "$docdir"/docs/REFERENCE.md* 2>/dev/null | wc -l)" "4"

# 3. scripts/demo.sh on this machine uses the package: it builds nothing, replaces no packaged
# file and installs no test tool
if DPOBJ_PGPORT=$((port + 1)) DPOBJ_DEMO_LOG=/tmp/demo-on-package.log bash scripts/demo.sh >/tmp/demo-on-package.out 2>&1; then
    ok "scripts/demo.sh runs on the package"
else
    not_ok "scripts/demo.sh runs on the package"; cat /tmp/demo-on-package.out; tail -n 30 /tmp/demo-on-package.log
fi
check "the demo said it used the package" "$(grep -c 'using the installed package' /tmp/demo-on-package.out)" "1"
check "no packaged file changed (dpkg -V)" "$(dpkg -V "postgresql-$major-dpobj" 2>&1)" ""
check "the demo installed no compiler and no test tool" \
    "$(installed | comm -13 /tmp/packages.server - | grep -E -- '-dev$|^(gcc|make|postgresql-[0-9]+-(pgtap|cron))$|^python3$')" ""

# 4. README.md's demo commands after the package install, as written (from this clone, which
# may sit where the postgres user cannot read: the commands copy the data): a database
# dpobj_demo with UCI Adult and the extension, then the recommended path
demo=$(awk '/<!-- package-path: begin -->/ { on = 1; next } /<!-- package-path: end -->/ { on = 0 }
            on && /^```sh$/ { sh = 1; next } on && sh && /^```$/ { sh = 0; next } on && sh { print }' README.md)
check "README.md's demo block loads UCI Adult and runs the path" \
    "$(grep -c 'data/adult/load.sql\|scripts/readme_path.sh' <<<"$demo")" "2"
if PGPORT="$port" bash -euxc "$demo" >/tmp/readme-path.out 2>&1; then
    ok "README.md's demo commands and path run as written"
else
    not_ok "README.md's demo commands and path run as written"; cat /tmp/readme-path.out
fi
end=$(date +%s.%N)
check "the path stored model income_v1" \
    "$(pgq -d dpobj_demo -c "SELECT count(*) FROM dpobj.models WHERE name = 'income_v1'")" "1"
check "describe, synthesize, train and evaluate were charged to the budget domain" \
    "$(pgq -d dpobj_demo -c "SELECT count(*) FROM dpobj.ledger WHERE budget_domain = 'adult_people' AND outcome = 'released'")" "4"
check "the library is the package's" \
    "$(dpkg -S "/usr/lib/postgresql/$major/lib/dpobj.so" | cut -d: -f1)" "postgresql-$major-dpobj"
secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
echo "# PostgreSQL $(pgq -c 'SHOW server_version'): package install to the end of README.md's path: ${secs}s"
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
