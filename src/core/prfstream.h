/*-------------------------------------------------------------------------
 *
 * prfstream.h
 *	  A keyed pseudo-random stream for the bits that select rows (sample
 *	  keys, the privacy-unit bounding's draws): word i is SipHash-2-4
 *	  (Aumasson & Bernstein 2012), a PRF, of the counter i under a per-run
 *	  128-bit key.  The proofs assume i.i.d. uniform words; a keyed PRF
 *	  gives them up to a distinguisher against SipHash, which xoroshiro
 *	  (not cryptographic) could not.  Plain C, tested against the reference
 *	  vectors in tests/unit/test_prfstream.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_PRFSTREAM_H
#define DPOBJ_PRFSTREAM_H

#include <stddef.h>
#include <stdint.h>

typedef struct DPPrfStream
{
	uint64_t	k0;				/* the key, little-endian words */
	uint64_t	k1;
	uint64_t	ctr;			/* the next word's counter */
} DPPrfStream;

/* SipHash-2-4 of len bytes under the 16-byte key */
extern uint64_t dp_siphash24(const uint8_t key[16], const void *msg, size_t len);

/* a stream under the 16-byte key, from counter 0 */
extern void dp_prf_init(DPPrfStream *s, const uint8_t key[16]);

/* the next uniform 64-bit word */
extern uint64_t dp_prf_next(DPPrfStream *s);

/* a uniform integer in [0, n - 1], n >= 1 (rejection: exact) */
extern uint64_t dp_prf_below(DPPrfStream *s, uint64_t n);

#endif							/* DPOBJ_PRFSTREAM_H */
