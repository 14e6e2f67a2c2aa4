/*-------------------------------------------------------------------------
 *
 * random.c
 *	  GSL generator types for dpobj's noise.
 *
 * Privacy rule: noise comes from a cryptographically secure source.  The
 * "dpobj_strong" gsl_rng_type draws every bit from pg_strong_random() (the
 * OpenSSL CSPRNG or /dev/urandom, whatever the server was built with), so
 * GSL's Gaussian/Laplace/exponential samplers can be used unchanged.  The
 * deterministic alternative (gsl_rng_mt19937 seeded with dpobj.seed) is
 * reachable only through the superuser-only GUC and exists for tests.
 *
 * Both generators are allocated with palloc in the caller's memory context
 * (no malloc), so an error raised anywhere leaks nothing.
 *
 *-------------------------------------------------------------------------
 */
#include "base/dpobj.h"

#include "base/random.h"

#include "port.h"

/* bytes fetched from pg_strong_random() at a time */
#define STRONG_BUFFER_BYTES 512

typedef struct StrongState
{
	int			used;			/* bytes of buf consumed */
	uint8		buf[STRONG_BUFFER_BYTES];
} StrongState;

static void
strong_refill(StrongState *st)
{
	if (!pg_strong_random(st->buf, sizeof(st->buf)))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not generate secure random numbers for dpobj noise"),
				 errhint("Check the server's random source (OpenSSL or /dev/urandom).")));
	st->used = 0;
}

static uint64
strong_bytes(StrongState *st, int nbytes)
{
	uint64		v = 0;

	if (st->used + nbytes > STRONG_BUFFER_BYTES)
		strong_refill(st);
	memcpy(&v, st->buf + st->used, nbytes);
	st->used += nbytes;
	return v;
}

static void
strong_set(void *vstate, unsigned long int seed)
{
	/* a cryptographic source ignores seeds */
	StrongState *st = (StrongState *) vstate;

	(void) seed;
	st->used = STRONG_BUFFER_BYTES;
}

static unsigned long int
strong_get(void *vstate)
{
	return (unsigned long int) (uint32) strong_bytes((StrongState *) vstate, 4);
}

static double
strong_get_double(void *vstate)
{
	/* 53 random bits -> uniform on [0, 1) with the full double resolution */
	uint64		v = strong_bytes((StrongState *) vstate, 8);

	return (double) (v >> 11) * (1.0 / 9007199254740992.0);
}

static const gsl_rng_type strong_type = {
	"dpobj_strong",
	0xffffffffUL,				/* max */
	0,							/* min */
	sizeof(StrongState),
	strong_set,
	strong_get,
	strong_get_double
};

bool
dpobj_rng_is_seeded(void)
{
	return dpobj_seed >= 0;
}

/*
 * A protected run (train(), submit() and its job, evaluate()) refuses while
 * dpobj.seed is set: seeded noise is predictable, which voids the guarantee
 * the budget accounts for.  A public ground (a setting), checked before the
 * charge; the direct aggregates keep using the seed (tests).
 */
void
dpobj_refuse_seeded(const char *what)
{
	if (dpobj_rng_is_seeded())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s: protected runs refuse seeded noise, and dpobj.seed is set", what),
				 errdetail("Nothing was charged."),
				 errhint("A superuser must reset dpobj.seed to -1 (RESET, ALTER SYSTEM/DATABASE/ROLE ... RESET dpobj.seed); the seed is for direct aggregates in tests.")));
}

gsl_rng *
dpobj_rng_new(void)
{
	gsl_rng    *rng = palloc(sizeof(gsl_rng));
	const gsl_rng_type *type = dpobj_rng_is_seeded() ? gsl_rng_mt19937 : &strong_type;

	rng->type = type;
	rng->state = palloc0(type->size);
	type->set(rng->state, dpobj_rng_is_seeded() ? (unsigned long) dpobj_seed : 0);
	return rng;
}

void
dpobj_rng_free(gsl_rng *rng)
{
	if (rng == NULL)
		return;
	/* wipe the generator state: it determines the noise */
	memset(rng->state, 0, rng->type->size);
	pfree(rng->state);
	pfree(rng);
}

void
dpobj_prf_strong_seed(DPPrfStream *s)
{
	uint8		key[16];

	if (!pg_strong_random(key, sizeof(key)))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not generate a random number"),
				 errhint("The server's random source failed; try again.")));
	dp_prf_init(s, key);
	explicit_bzero(key, sizeof(key));
}

void
dpobj_prf_seeded(DPPrfStream *s, uint64 seed, uint64 tweak)
{
	uint8		key[16];

	for (int i = 0; i < 8; i++)
	{
		key[i] = (uint8) (seed >> (8 * i));
		key[8 + i] = (uint8) (tweak >> (8 * i));
	}
	dp_prf_init(s, key);
}
