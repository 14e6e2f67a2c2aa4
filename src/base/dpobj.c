/*-------------------------------------------------------------------------
 *
 * dpobj.c
 *	  The extension-wide configuration parameters (dpobj.h); the module
 *	  entry point that defines them with every subsystem's is init.c.
 *
 *-------------------------------------------------------------------------
 */
#include "base/dpobj.h"

#include "fmgr.h"
#include <limits.h>

#include "utils/guc.h"
#include "miscadmin.h"


int			dpobj_seed = -1;
double		dpobj_solver_time_limit = 600.0;
int			dpobj_oracle = DPOBJ_ORACLE_AUTO;
int			dpobj_oracle_threads = DPOBJ_DEFAULT_ORACLE_THREADS;
bool		dpobj_glm_skip_newton = false;
int			dpobj_max_state_memory = DPOBJ_DEFAULT_STATE_MEMORY;
double		dpobj_protected_time_limit = 0.0;
double		dpobj_max_self_grant_epsilon = 0.0;
double		dpobj_max_self_grant_delta = 0.0;
double		dpobj_approx_delta_reserve = 0.1;
char	   *dpobj_drop_confirm = NULL;
double		dpobj_query_epsilon = 0.0;
double		dpobj_query_delta = 0.0;
int			dpobj_query_private_bound = 0;

static const struct config_enum_entry query_rows_per_unit_options[] = {
	{"declared", 0, false},
	{"private", 1, false},
	{NULL, 0, false}
};

static const struct config_enum_entry oracle_options[] = {
	{"auto", DPOBJ_ORACLE_AUTO, false},
	{"mip", DPOBJ_ORACLE_MIP, false},
	{"search", DPOBJ_ORACLE_SEARCH, false},
	{NULL, 0, false}
};

const char *
dpobj_oracle_name(DPObjOracle oracle)
{
	switch (oracle)
	{
		case DPOBJ_ORACLE_MIP:
			return "mip";
		case DPOBJ_ORACLE_SEARCH:
			return "search";
		default:
			return "auto";
	}
}

/*
 * Settings of the sealed protected path.  All PGC_SUSET: only a
 * superuser (postgresql.conf, ALTER SYSTEM, ALTER DATABASE/ROLE ... SET)
 * decides them, never the analyst whose runs they govern.
 */
static void
dpobj_define_seal_gucs(void)
{
	DefineCustomRealVariable("dpobj.protected_time_limit",
							 "Time limit in seconds for one exact oracle solve inside dpobj.train() and jobs; 0 (the default) means no limit.",
							 "Whether a solve certifies within a limit depends on the data, so a limit adds a failure the privacy guarantee does not cover; only a superuser sets it. dpobj.solver_time_limit and the \"time_limit\" option apply to the direct aggregates only.",
							 &dpobj_protected_time_limit,
							 0.0, 0.0, 86400.0 * 7,
							 PGC_SUSET, GUC_UNIT_S,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("dpobj.max_self_grant_epsilon",
							 "Largest total epsilon a dpobj_admin member may grant to itself (or a role it can act as) on a table it does not own.",
							 "0 (the default) forbids such self-grants; superusers and table owners are not capped.",
							 &dpobj_max_self_grant_epsilon,
							 0.0, 0.0, 1e6,
							 PGC_SUSET, 0,
							 NULL, NULL, NULL);

	/* a policy of the budgets this session grants: any value is sound (PRIVACY.md) */
	DefineCustomRealVariable("dpobj.approx_delta_reserve",
							 "Share of a budget's delta that budgets granted in this session keep for approximate-DP runs after their first zCDP run.",
							 "Read by grant_budget and grant_domain_budget when they create a budget. 0 keeps all of delta for the zCDP part, and approximate-DP runs are refused after a zCDP run. The default, 0.1, admits them at some cost in zCDP runs (docs/PRIVACY.md, \"Composition: one filter for every mechanism\").",
							 &dpobj_approx_delta_reserve,
							 0.1, 0.0, 0.5,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("dpobj.max_self_grant_delta",
							 "Largest total delta a dpobj_admin member may grant to itself (or a role it can act as) on a table it does not own.",
							 "0 (the default) forbids such self-grants.",
							 &dpobj_max_self_grant_delta,
							 0.0, 0.0, 0.999999,
							 PGC_SUSET, 0,
							 NULL, NULL, NULL);

	DefineCustomStringVariable("dpobj.drop_confirm",
							   "Confirms dropping dpobj (and with it the privacy ledger and budgets) in the database of this name.",
							   "DROP EXTENSION dpobj, DROP SCHEMA dpobj and DROP OWNED BY its owner are refused while a ledger or budgets exist unless this equals the current database's name (docs/SECURITY.md).",
							   &dpobj_drop_confirm,
							   "",
							   PGC_SUSET, 0,
							   NULL, NULL, NULL);
}

void
dpobj_define_gucs(void)
{
	/*
	 * dpobj.seed makes noise reproducible.  It exists for tests only and is
	 * PGC_SUSET: only a superuser can make an analyst's noise predictable.
	 */
	DefineCustomIntVariable("dpobj.seed",
							"Seed for reproducible noise (tests only); -1 draws noise from pg_strong_random.",
							"Setting a seed makes the released model predictable and voids the privacy guarantee.",
							&dpobj_seed,
							-1, -1, INT_MAX,
							PGC_SUSET, 0,
							NULL, NULL, NULL);

	DefineCustomRealVariable("dpobj.solver_time_limit",
							 "Time limit in seconds for one exact oracle solve; 0 means no limit.",
							 "A solve that is not certified optimal within the limit releases no model, and its budget stays charged.",
							 &dpobj_solver_time_limit,
							 600.0, 0.0, 86400.0 * 7,
							 PGC_USERSET, GUC_UNIT_S,
							 NULL, NULL, NULL);

	DefineCustomEnumVariable("dpobj.oracle",
							 "Exact oracle for OPDisc: auto, mip (GLPK) or search (exact depth-first search).",
							 "All oracles return the same argmin of the same objective; they differ only in speed.",
							 &dpobj_oracle,
							 DPOBJ_ORACLE_AUTO, oracle_options,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);

	/*
	 * Threads of the exact search (plain C threads that never call
	 * PostgreSQL; the backend's own thread polls interrupts).  A server
	 * resource like max_parallel_workers_per_gather, and a timing knob of
	 * the protected path, so only a superuser sets it.
	 */
	DefineCustomIntVariable("dpobj.oracle_threads",
							"Threads for one exact oracle search (OPDisc, RSPM).",
							"The answer is the same for any number; more threads certify sooner on servers with idle cores.",
							&dpobj_oracle_threads,
							DPOBJ_DEFAULT_ORACLE_THREADS, 1, 64,
							PGC_SUSET, 0,
							NULL, NULL, NULL);

	/*
	 * Tests only: dp_logistic skips Newton and takes its fallback, the
	 * accelerated descent, which every run that Newton cannot finish takes
	 * (src/core/glmdescent.c).  Superuser only, to set and to read (an
	 * analyst neither sets nor sees it).  Protected runs honour it: it only
	 * chooses the path that the hardest rows would take, every path ends
	 * within the same public bound, and the output noise covers that bound,
	 * so the release's guarantee is the same with it on or off -- only the
	 * run time and the accuracy within the bound change, and the run time
	 * is the caller's already (docs/SECURITY.md).
	 */
	DefineCustomBoolVariable("dpobj.glm_skip_newton",
							 "Tests only: dp_logistic minimises by its fallback, accelerated gradient descent, without Newton.",
							 "The released model's privacy guarantee does not change; the run is slower.",
							 &dpobj_glm_skip_newton,
							 false,
							 PGC_SUSET, GUC_SUPERUSER_ONLY | GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);

	/*
	 * The memory of a dp_logistic or dp_noisysgd state's distinct rows in
	 * one backend; further distinct rows go to temporary files
	 * (src/state/rowspill.c) and the released model is the same.  A server
	 * resource like work_mem, and a timing knob of the protected path, so
	 * only a superuser sets it.
	 */
	DefineCustomIntVariable("dpobj.max_state_memory",
							"Memory for the distinct rows of one dp_logistic or dp_noisysgd state; more distinct rows spill to temporary files.",
							"The released model does not depend on it; runs that spill are slower and use temporary file space.",
							&dpobj_max_state_memory,
							DPOBJ_DEFAULT_STATE_MEMORY, 64, MAX_KILOBYTES,
							PGC_SUSET, GUC_UNIT_KB,
							NULL, NULL, NULL);

	/*
	 * The privacy parameters of a plain aggregate SELECT on a protected
	 * table (src/protected/sqlfront.c): read when the query runs, each run
	 * charged; 0 leaves such a SELECT refused with a hint.
	 */
	DefineCustomRealVariable("dpobj.query_epsilon",
							 "Epsilon each plain aggregate SELECT on a protected table spends; 0 (the default) refuses such queries.",
							 "Each execution is one charge on your budget, split equally over the query's statistics.",
							 &dpobj_query_epsilon,
							 0.0, 0.0, 1e6,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);
	DefineCustomRealVariable("dpobj.query_delta",
							 "Delta each plain aggregate SELECT on a protected table spends (default 0).",
							 "Needed (> 0) to group by a column without declared levels (private key selection).",
							 &dpobj_query_delta,
							 0.0, 0.0, 0.999999,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);
	/* "rows_per_unit": "private" of each such SELECT (protected/unitbound.h) */
	DefineCustomEnumVariable("dpobj.query_rows_per_unit",
							 "Rows per privacy unit of each plain aggregate SELECT: declared (the table's k, the default) or private (chosen at a tenth of epsilon, at most k).",
							 NULL,
							 &dpobj_query_private_bound,
							 0, query_rows_per_unit_options,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);

	dpobj_define_seal_gucs();
}
