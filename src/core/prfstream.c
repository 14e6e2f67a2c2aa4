/*-------------------------------------------------------------------------
 *
 * prfstream.c
 *	  SipHash-2-4 and the counter-mode stream over it (prfstream.h).
 *
 *-------------------------------------------------------------------------
 */
#include "core/prfstream.h"

#include <string.h>

#define ROTL(x, b) (uint64_t) (((x) << (b)) | ((x) >> (64 - (b))))

#define SIPROUND(v0, v1, v2, v3) \
	do { \
		v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32); \
		v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2; \
		v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0; \
		v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32); \
	} while (0)

/* little-endian load of n <= 8 bytes */
static inline uint64_t
load_le(const uint8_t *p, size_t n)
{
	uint64_t	w = 0;

	for (size_t i = 0; i < n; i++)
		w |= (uint64_t) p[i] << (8 * i);
	return w;
}

/* the compression of one word m into the state */
static inline void
sip_absorb(uint64_t v[4], uint64_t m)
{
	v[3] ^= m;
	SIPROUND(v[0], v[1], v[2], v[3]);
	SIPROUND(v[0], v[1], v[2], v[3]);
	v[0] ^= m;
}

static inline uint64_t
sip_finish(uint64_t v[4])
{
	v[2] ^= 0xff;
	for (int i = 0; i < 4; i++)
		SIPROUND(v[0], v[1], v[2], v[3]);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

static inline void
sip_start(uint64_t v[4], uint64_t k0, uint64_t k1)
{
	v[0] = k0 ^ UINT64_C(0x736f6d6570736575);
	v[1] = k1 ^ UINT64_C(0x646f72616e646f6d);
	v[2] = k0 ^ UINT64_C(0x6c7967656e657261);
	v[3] = k1 ^ UINT64_C(0x7465646279746573);
}

uint64_t
dp_siphash24(const uint8_t key[16], const void *msg, size_t len)
{
	const uint8_t *p = msg;
	uint64_t	v[4];
	size_t		full = len - len % 8;

	sip_start(v, load_le(key, 8), load_le(key + 8, 8));
	for (size_t i = 0; i < full; i += 8)
		sip_absorb(v, load_le(p + i, 8));
	sip_absorb(v, ((uint64_t) len << 56) | load_le(p + full, len % 8));
	return sip_finish(v);
}

void
dp_prf_init(DPPrfStream *s, const uint8_t key[16])
{
	s->k0 = load_le(key, 8);
	s->k1 = load_le(key + 8, 8);
	s->ctr = 0;
}

/* SipHash-2-4 of the counter's 8 little-endian bytes: dp_siphash24's words */
uint64_t
dp_prf_next(DPPrfStream *s)
{
	uint64_t	v[4];

	sip_start(v, s->k0, s->k1);
	sip_absorb(v, s->ctr++);
	sip_absorb(v, (uint64_t) 8 << 56);
	return sip_finish(v);
}

uint64_t
dp_prf_below(DPPrfStream *s, uint64_t n)
{
	/* the largest multiple of n words: reject above it */
	uint64_t	limit = n == 0 ? 0 : UINT64_MAX - (UINT64_MAX % n + 1) % n;
	uint64_t	w;

	if (n <= 1)
		return 0;
	do
		w = dp_prf_next(s);
	while (w > limit);
	return w % n;
}
