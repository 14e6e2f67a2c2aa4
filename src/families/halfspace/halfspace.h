/*-------------------------------------------------------------------------
 *
 * halfspace.h
 *	  The halfspace family (docs/ARCHITECTURE.md, "Families"): OPDisc
 *	  (halfspace.c), RSPM (rspm.c) and the exponential mechanism
 *	  (expmech.c) over one state, the quantised row multiset or its uniform
 *	  sample (halfspacestate.c, options in halfspaceparams.c), and the exact
 *	  oracles' glue (oracle.c).  Its entries: the argument checks and
 *	  HALFSPACE_FAMILY_MECHANISMS, of halfspace_family (halfspace.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_HALFSPACE_H
#define DPOBJ_HALFSPACE_H

#include "postgres.h"

#include "utils/jsonb.h"

#include "families/halfspace/halfspaceparams.h"
#include "families/halfspace/halfspacestate.h"
#include "model/kinds.h"

/* its models' kind, the lattice <w, round(Q x)> in integers (halfspacemodel.c) */
extern const ModelKindOps halfspace_model_kind;

/* the halfspace mechanisms' argument checks (their registry entries) */
extern void opdisc_check_args(const char *aggname, double epsilon, double delta,
							  int d, Jsonb *options);
extern void rspm_check_args(const char *aggname, double epsilon, double delta,
							int d, Jsonb *options);
extern void expmech_check_args(const char *aggname, double epsilon, double delta,
							   int d, Jsonb *options);

/*
 * The family's entries (DPMechanism, mechanisms/family.h; in halfspace_family): binary halfspace
 * models over the halfspace kinds' sample, one option table
 */
#define HALFSPACE_FAMILY_MECHANISMS \
	{.name = "opdisc", .aggregate = "dpobj.dp_halfspace", .aggname = "dp_halfspace", \
		.check_args = opdisc_check_args, .model_kind = &halfspace_model_kind, \
		.citus_shard_options = true, .options = hsparams_options, \
		.ledger = DP_LEDGER({"opdisc", LEDGER_COST_APPROX})}, \
	{.name = "rspm", .aggregate = "dpobj.dp_halfspace_rspm", .aggname = "dp_halfspace_rspm", \
		.check_args = rspm_check_args, .model_kind = &halfspace_model_kind, \
		.citus_shard_options = true, .options = hsparams_options, \
		.ledger = DP_LEDGER({"rspm", LEDGER_COST_APPROX})}, \
	{.name = "expmech", .aggregate = "dpobj.dp_expmech", .aggname = "dp_expmech", \
		.check_args = expmech_check_args, .model_kind = &halfspace_model_kind, \
		.citus_shard_options = true, .options = hsparams_options, \
		.ledger = DP_LEDGER({"expmech", LEDGER_COST_PURE})}

#endif							/* DPOBJ_HALFSPACE_H */
