# dpobj — PGXS build.  `make && make install && make installcheck`
EXTENSION = dpobj
MODULE_big = dpobj
# 0.1.0 to 0.6.0 are released and their scripts never change; every later SQL change goes
# into dpobj--0.6.0--0.7.0.sql until 0.7.0 is released.  A fresh CREATE EXTENSION runs
# dpobj--0.5.0.sql (the whole 0.5.0 install) and then the upgrades after it, that one
# last; databases on an older release update through the upgrade scripts.  The install
# scripts of 0.1.0 to 0.4.0 are not installed: no installable version creates objects
# before checking its schema (sql/dpobj--0.1.0.sql, sql/dpobj--0.3.0.sql and
# sql/dpobj--0.4.0.sql stay in the tree as released).
DATA = sql/dpobj--0.5.0.sql sql/dpobj--0.1.0--0.2.0.sql sql/dpobj--0.2.0--0.3.0.sql \
	sql/dpobj--0.3.0--0.4.0.sql sql/dpobj--0.4.0--0.5.0.sql sql/dpobj--0.5.0--0.6.0.sql
# The next upgrade script is built: its shared part (sql/dpobj--0.6.0--0.7.0.sql.in), then
# each family's SQL objects, sql/families/<f>.sql, in the registry's order (DP_FAMILIES in
# src/families/registry.c); a family with none has no file.  At 0.7.0's release it is
# frozen as a file in sql/ (listed in DATA) and the script after it is built so.
DP_FAMILIES := $(shell sed -n 's/^\#define DP_FAMILIES(X) //p' src/families/registry.c | \
	grep -oE 'X\([a-z0-9_]+\)' | sed 's/^X(//; s/)$$//')
FAMILY_SQL = $(wildcard $(patsubst %,sql/families/%.sql,$(DP_FAMILIES)))
NEXT_SCRIPT = sql/dpobj--0.6.0--0.7.0.sql
DATA_built = $(NEXT_SCRIPT)

# One folder per subsystem, listed bottom layer first (docs/ARCHITECTURE.md): src/core is
# plain C without PostgreSQL headers (unit-tested on its own in tests/unit); the others are
# the PostgreSQL glue; src/families/ holds the registry and a folder per family, every
# folder present built.  Only src/ is on the include path: an include names its folder
# ("state/aggstate.h") and never one above its own (tests/docs checks both).
DPOBJ_DIRS = core base ledger model context state mechanisms families families/* protected jobs api
# every .c file of those folders, and dpobj.help()'s text generated from docs/REFERENCE.md
OBJS = $(patsubst %.c,%.o,$(filter-out src/api/helptext.c,$(wildcard $(addsuffix /*.c,$(addprefix src/,$(DPOBJ_DIRS)))))) \
	src/api/helptext.o

PG_CPPFLAGS = -I$(srcdir)/src
# no fused multiply-add where the compiler would contract one by default (e.g. aarch64):
# every product rounds as written, so a model under one dpobj.seed and the calibrations'
# float8 bounds are the same on every architecture, and the solver's paired (vector) and
# single (scalar) arithmetic agree bit for bit
# C11 (PostgreSQL 18's headers need it; 15-17 build with it too)
PG_CFLAGS = -std=gnu11 -Wall -Wmissing-prototypes -pthread -ffp-contract=off
SHLIB_LINK = -lglpk -lgsl -lgslcblas -lm -pthread

# pg_regress: sql/<name>.sql against expected/<name>.out, every test file present (not the
# extension's scripts sql/dpobj--*.sql).  REGRESS_FIRST run first, in this order: setup
# (the helpers the others use) and the tests that read what the others leave in the one
# ledger and the models catalog (halfspace_errors expects it empty; halfspace, ledger,
# budget, models and passglm list its rows); then every other test by name.  A new test is
# a new file and reads only its own rows: nothing lists it.
REGRESS_FIRST = setup halfspace_errors model halfspace ledger budget parallel jobs \
	mechanisms_errors mechanisms help security models passglm
REGRESS_FILES = $(sort $(basename $(notdir $(filter-out sql/dpobj--%,$(wildcard sql/*.sql)))))
REGRESS = $(filter $(REGRESS_FILES),$(REGRESS_FIRST)) $(filter-out $(REGRESS_FIRST),$(REGRESS_FILES))
REGRESS_OPTS = --inputdir=. --load-extension=dpobj

EXTRA_CLEAN = results regression.diffs regression.out src/api/helptext.c

# made on every make, read-only: an edit of the built file is undone, never kept unseen
.PHONY: $(NEXT_SCRIPT)
$(NEXT_SCRIPT):
	cat $(NEXT_SCRIPT).in $(FAMILY_SQL) > $@.tmp && chmod a-w $@.tmp
	if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv -f $@.tmp $@; fi

# dpobj.help() is docs/REFERENCE.md, compiled in (src/api/helpgen.awk)
src/api/helptext.c: docs/REFERENCE.md src/api/helpgen.awk
	awk -f src/api/helpgen.awk docs/REFERENCE.md > $@.tmp && mv $@.tmp $@

# recompile a file when a header it includes changes (PGXS's -MMD dependency files)
override autodepend = yes

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# the rules above must not become the default goal
.DEFAULT_GOAL := all

# An installation that had 0.1.0 to 0.4.0 keeps their install scripts, which no
# longer ship: removed on install so that no old version stays installable there either.
install: remove-old-install-scripts
.PHONY: remove-old-install-scripts
remove-old-install-scripts:
	rm -f '$(DESTDIR)$(datadir)/extension/dpobj--0.1.0.sql' '$(DESTDIR)$(datadir)/extension/dpobj--0.2.0.sql' \
		'$(DESTDIR)$(datadir)/extension/dpobj--0.3.0.sql' '$(DESTDIR)$(datadir)/extension/dpobj--0.4.0.sql'
