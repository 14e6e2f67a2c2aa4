/*-------------------------------------------------------------------------
 *
 * glmprivr.c
 *	  The private norm bound of dp_logistic and dp_noisysgd: the norms'
 *	  histogram, R-hat and its public params (glmprivr.h).  Each row's norm is a fixed per-row function, so one
 *	  replaced, added or removed row moves one count of the histogram, and
 *	  the exponential mechanism's losses by at most 1 (privquant.h).
 *
 *-------------------------------------------------------------------------
 */
#include "families/glm/glmprivr.h"

#include "core/auditmutant.h"
#include "families/glm/glmblocks.h"
#include "mechanisms/mechanism.h"
#include "model/model.h"
#include "core/rowclip.h"

#include "miscadmin.h"

void
glm_privr_histogram(const GLMState *s, int64 *hist)
{
	GLMBlocks  *b = glmblocks_begin(s, keptrows_block_rows(8 * (Size) s->rows.d + 16));
	const GLMState *v;

	memset(hist, 0, sizeof(int64) * PRIVQUANT_N);
	for (v = glmblocks_next(b, true); v != NULL; v = glmblocks_next(b, false))
	{
		for (int u = 0; u < v->rows.nrows; u++)
		{
			int			k = privquant_bin(rowclip_norm(v->rows.x + (Size) u * v->rows.d, v->rows.d, false));
			int64		c = v->rows.pos[u] + v->rows.neg[u];

			hist[k] = hist[k] > PG_INT64_MAX - c ? PG_INT64_MAX : hist[k] + c;
		}
		CHECK_FOR_INTERRUPTS();	/* before the charge: nothing spent yet */
	}
	/* its buffers are gone before the design's take their share of the cap */
	glmblocks_end(b);
}

int
glm_privr_select(gsl_rng *rng, const GLMParams *p, double eps_R, const int64 *hist,
				 int64 ledger_id)
{
	int			chosen = 0;

#if DPOBJ_MUTANT_IS(expmech)
	eps_R *= DPOBJ_MUTANT_FACTOR;	/* audit mutant */
#endif
	if (privquant_draw(rng, hist, p->R_quantile, eps_R, p->rows_per_unit,
					   mechanism_stop_pending, NULL, &chosen) == EXPSAMPLE_OK)
		return chosen;
	mechanism_poll(ledger_id);
	ereport(ERROR,
			(errcode(ERRCODE_QUERY_CANCELED),
			 errmsg("the private norm bound's draw was interrupted"),
			 errhint("The privacy budget of this run is spent; run it again.")));
	return 0;					/* keep compiler quiet */
}

void
glm_privr_params(StringInfo buf, const GLMParams *p, double R_eps, double R_rho)
{
	/* R is R-hat, a DP output; nothing here comes from the rows */
	model_params_text(buf, "R_source", "private");
	model_params_float(buf, "R_quantile", p->R_quantile);
	model_params_float(buf, "R_share", p->R_share);
	model_params_float(buf, "R_epsilon", R_eps);
	if (R_rho >= 0)
		model_params_float(buf, "R_rho", R_rho);
}
