# shellcheck shell=bash
# tests/citus/build.sh — build Citus once from the vendored source and install it into the
# PostgreSQL installation under test.  Sourced by tests/citus/run.sh and bench/citus/run.sh
# after scripts/common.sh (which sets PG_CONFIG).
#
#   dpobj_citus_install   build (cached) and install Citus into $PG_CONFIG's installation
#
# Citus is a test dependency only (AGPL v3): it is never copied into dpobj and never
# shipped with it.  The source is Citus's release archive (version and SHA-256 below):
# Citus 12.1.12 on PostgreSQL 15 (the newest line that builds against Debian's 15.20),
# Citus 14.0.1 on 16, 17 and 18.
#
# The build is cached outside the repository, keyed by the Citus version and by the
# PostgreSQL installation (pg_config's version, configure flags and directories), so a
# second run -- or a run from another checkout against the same installation -- only
# installs (a few seconds) or does nothing at all.
#
# Environment:
#   DPOBJ_CITUS_SRC    directory holding citus-<version>.tar.gz [first of ../shared/vendor/citus,
#                      ../../shared/vendor/citus relative to the repository]
#   DPOBJ_CITUS_CACHE  cache directory [${XDG_CACHE_HOME:-$HOME/.cache}/dpobj-citus]
#   DPOBJ_SKIP_APT=1   do not install the build dependencies (fail if they are missing)

if [[ "${PG_MAJOR:-15}" == 15 ]]; then
    DPOBJ_CITUS_VERSION=12.1.12
    DPOBJ_CITUS_SHA256=c66b8c6544a6f7e55fbbcca55258c6f9ad91d3486bb7404bb883b689f39ecc86
else
    DPOBJ_CITUS_VERSION=14.0.1
    DPOBJ_CITUS_SHA256=26ddb8ec9de07c5fa8426e435d10936e5cd6bed01a5ad94aab92e818081e5ec9
fi
# Debian packages Citus's configure and build need; from 16 on the server's
# utils/pg_locale.h includes ICU's unicode/ucol.h.  Citus is configured --without-libcurl
# (a test node never phones home), except from 18 on: Debian's server is built with libcurl
# (OAuth), its pg_config.h defines HAVE_LIBCURL, and Citus's sources then include curl.h and
# call libcurl, so the build links it; statistics collection stays compiled out (Citus
# enables it only with ENABLE_CITUS_STATISTICS_COLLECTION, which its build never defines).
DPOBJ_CITUS_PACKAGES=("postgresql-server-dev-${PG_MAJOR:-15}" liblz4-dev libzstd-dev libkrb5-dev
                      libssl-dev autoconf flex bison)
[[ "${PG_MAJOR:-15}" == 15 ]] || DPOBJ_CITUS_PACKAGES+=(libicu-dev)
DPOBJ_CITUS_CURL=--without-libcurl
if [[ "${PG_MAJOR:-15}" -ge 18 ]]; then
    DPOBJ_CITUS_PACKAGES+=(libcurl4-openssl-dev)
    DPOBJ_CITUS_CURL=--with-libcurl
fi

dpobj_citus_source() {
    local d
    for d in "${DPOBJ_CITUS_SRC:-}" "$REPO/../shared/vendor/citus" "$REPO/../../shared/vendor/citus"; do
        if [[ -n "$d" && -f "$d/citus-$DPOBJ_CITUS_VERSION.tar.gz" ]]; then
            (cd "$d" && pwd)
            return 0
        fi
    done
    return 1
}

dpobj_citus_packages() {
    local missing=() p
    for p in "${DPOBJ_CITUS_PACKAGES[@]}"; do
        dpobj_pkg_installed "$p" || missing+=("$p")
    done
    [[ ${#missing[@]} -eq 0 ]] && return 0
    if [[ "${DPOBJ_SKIP_APT:-0}" == 1 ]]; then
        dpobj_die "Citus build dependencies missing (DPOBJ_SKIP_APT=1): ${missing[*]}"
    fi
    dpobj_log "citus: installing build dependencies ${missing[*]}"
    dpobj_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
    dpobj_as_root env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# The cache key: Citus version + what identifies the PostgreSQL installation.
dpobj_citus_key() {
    {
        echo "citus $DPOBJ_CITUS_VERSION"
        "$PG_CONFIG" --version
        "$PG_CONFIG" --configure
        "$PG_CONFIG" --includedir-server
        "$PG_CONFIG" --pkglibdir
        "$PG_CONFIG" --sharedir
    } | sha256sum | cut -c1-16
}

# Prints the build directory (a configured and built Citus tree) on stdout.
dpobj_citus_build() {
    local src tarball cache key dir
    src="$(dpobj_citus_source)" ||
        dpobj_die "citus-$DPOBJ_CITUS_VERSION.tar.gz not found (set DPOBJ_CITUS_SRC to its directory)"
    tarball="$src/citus-$DPOBJ_CITUS_VERSION.tar.gz"
    cache="${DPOBJ_CITUS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dpobj-citus}"
    key="$(dpobj_citus_key)"
    dir="$cache/citus-$DPOBJ_CITUS_VERSION-$key"
    mkdir -p "$cache"
    (
        # one build at a time per cache entry (parallel checkouts share the cache)
        flock 9
        if [[ -f "$dir/.dpobj-built" ]]; then
            exit 0
        fi
        echo "$DPOBJ_CITUS_SHA256  $tarball" | sha256sum -c --quiet - >&2 ||
            dpobj_die "checksum mismatch for $tarball"
        dpobj_citus_packages
        # configure records absolute paths: build in place; the stamp marks a finished build
        rm -rf -- "$dir"
        mkdir -p "$dir"
        tar -xzf "$tarball" -C "$dir" --strip-components=1
        dpobj_log "citus: building $DPOBJ_CITUS_VERSION in $dir (about 2 minutes on 2 cores)"
        (cd "$dir" && ./configure PG_CONFIG="$PG_CONFIG" "$DPOBJ_CITUS_CURL" >configure.log 2>&1) ||
            { tail -n 30 "$dir/configure.log" >&2; dpobj_die "citus configure failed"; }
        # (no JIT bitcode, in the build and the install: the tests do not need it, and the
        # build takes about half the time)
        (cd "$dir" && make -j"$(nproc)" with_llvm=no >build.log 2>&1) ||
            { tail -n 30 "$dir/build.log" >&2; dpobj_die "citus build failed"; }
        touch "$dir/.dpobj-built"
    ) 9>"$cache/.lock-$key" >&2 || return 1
    printf '%s\n' "$dir"
}

# Build (cached) and install into the PostgreSQL installation of $PG_CONFIG, unless the
# installed libraries are already this build's.
dpobj_citus_install() {
    local dir pkglib
    dir="$(dpobj_citus_build)" || dpobj_die "citus build failed"
    pkglib="$("$PG_CONFIG" --pkglibdir)"
    if cmp -s "$dir/src/backend/distributed/citus.so" "$pkglib/citus.so" &&
       cmp -s "$dir/src/backend/columnar/citus_columnar.so" "$pkglib/citus_columnar.so" &&
       [[ -f "$("$PG_CONFIG" --sharedir)/extension/citus.control" ]]; then
        dpobj_log "citus: $DPOBJ_CITUS_VERSION already installed in $pkglib"
        return 0
    fi
    dpobj_log "citus: make install into $pkglib"
    dpobj_as_root make -C "$dir" install PG_CONFIG="$PG_CONFIG" with_llvm=no >"$dir/install.log" 2>&1 ||
        { tail -n 30 "$dir/install.log" >&2; dpobj_die "citus install failed"; }
}
