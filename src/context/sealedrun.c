/*-------------------------------------------------------------------------
 *
 * sealedrun.c
 *	  The typed entry into the sealed path (sealedrun.h): a pointer to
 *	  train.c's implementation, installed at _PG_init, so that a layer
 *	  below protected/ (a family's entry point) reaches it without a call
 *	  up the layers.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/builtins.h"

#include "context/sealedrun.h"

static DPSealedRunFn sealed_run_fn = NULL;

void
dp_sealed_install(DPSealedRunFn fn)
{
	sealed_run_fn = fn;
}

static Datum
sealed_call(const DPRunRequest *req, bool validate_only)
{
	if (sealed_run_fn == NULL)
		elog(ERROR, "dpobj: the sealed path is not installed");
	return sealed_run_fn(req, validate_only);
}

Datum
dp_sealed_run(const DPRunRequest *req)
{
	return sealed_call(req, false);
}

void
dp_sealed_check(const DPRunRequest *req)
{
	(void) sealed_call(req, true);
}

ArrayType *
dp_run_columns(char **cols, int ncols)
{
	Datum	   *d = palloc(sizeof(Datum) * ncols);

	for (int i = 0; i < ncols; i++)
		d[i] = CStringGetTextDatum(cols[i]);
	return construct_array(d, ncols, TEXTOID, -1, false, TYPALIGN_INT);
}
