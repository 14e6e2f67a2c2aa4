# dpobj — PGXS build.  `make && make install && make installcheck`
EXTENSION = dpobj
MODULE_big = dpobj
# 0.1.0 and 0.2.0 are released and never change; every later SQL change is an upgrade
# script.  A fresh CREATE EXTENSION runs dpobj--0.1.0.sql and then the upgrade
# chain to default_version (PostgreSQL picks that path itself, as contrib does).
DATA = sql/dpobj--0.1.0.sql sql/dpobj--0.1.0--0.2.0.sql sql/dpobj--0.2.0--0.3.0.sql

OBJS = \
	src/init.o \
	src/dpobj.o \
	src/options.o \
	src/calibrate.o \
	src/calibsql.o \
	src/random.o \
	src/hsparams.o \
	src/rowset.o \
	src/aggstate.o \
	src/distributed.o \
	src/hsstate.o \
	src/scanrels.o \
	src/mechanism.o \
	src/halfspace.o \
	src/model.o \
	src/predict.o \
	src/models.o \
	src/dpnoise.o \
	src/evaluate.o \
	src/ledger.o \
	src/ledgerrun.o \
	src/ledgertransport.o \
	src/ledgershm.o \
	src/ledgerwriter.o \
	src/ledgeroneshot.o \
	src/ledgerexec.o \
	src/budget.o \
	src/entryargs.o \
	src/privileged.o \
	src/protectable.o \
	src/protected.o \
	src/train.o \
	src/trainquery.o \
	src/seal.o \
	src/dropguard.o \
	src/jobs.o \
	src/progress.o \
	src/oracle.o \
	src/clientcheck.o \
	src/runlimit.o \
	src/rowinput.o \
	src/opdisc_objective.o \
	src/opdisc_mip.o \
	src/opdisc_search.o \
	src/opdisc_searchls.o \
	src/opdisc_searchsetup.o \
	src/opdisc_searchrun.o \
	src/opdisc_pool.o \
	src/rspm.o \
	src/expmech.o \
	src/glmparams.o \
	src/glmloss.o \
	src/glmstate.o \
	src/glm.o \
	src/glmsolve.o \
	src/glmminimise.o \
	src/noisysgd.o \
	src/opsamp.o \
	src/help.o \
	src/helptext.o

PG_CPPFLAGS = -I$(srcdir)/src
PG_CFLAGS = -std=gnu99 -Wall -Wmissing-prototypes -pthread
SHLIB_LINK = -lglpk -lgsl -lgslcblas -lm -pthread

# pg_regress: sql/<name>.sql against expected/<name>.out
REGRESS = setup halfspace_errors model halfspace ledger budget parallel jobs mechanisms_errors mechanisms help security models evaluate security_evaluate documented_defaults security_numerics
REGRESS_OPTS = --inputdir=. --load-extension=dpobj

EXTRA_CLEAN = results regression.diffs regression.out src/helptext.c

# dpobj.help() is docs/REFERENCE.md, compiled in (src/helpgen.awk)
src/helptext.c: docs/REFERENCE.md src/helpgen.awk
	awk -f src/helpgen.awk docs/REFERENCE.md > $@.tmp && mv $@.tmp $@

# recompile a file when a header it includes changes (PGXS's -MMD dependency files)
override autodepend = yes

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# the helptext.c rule above must not become the default goal
.DEFAULT_GOAL := all
