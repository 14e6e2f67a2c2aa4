/*
 * test_prfstream.c -- the keyed stream of src/core/prfstream.c: SipHash-2-4
 * against the reference implementation's vectors (key 00..0f, message
 * 00..n-1; Aumasson & Bernstein's vectors_sip64), the stream's words as
 * SipHash of the counter, and the exact range draw.
 */
#include <stdio.h>
#include <string.h>

#include "core/prfstream.h"
#include "unitcheck.h"

static const uint64_t vectors[17] = {
	0x726fdb47dd0e0e31ULL, 0x74f839c593dc67fdULL, 0x0d6c8009d9a94f5aULL,
	0x85676696d7fb7e2dULL, 0xcf2794e0277187b7ULL, 0x18765564cd99a68dULL,
	0xcbc9466e58fee3ceULL, 0xab0200f58b01d137ULL, 0x93f5f5799a932462ULL,
	0x9e0082df0ba9e4b0ULL, 0x7a5dbbc594ddb9f3ULL, 0xf4b32f46226bada7ULL,
	0x751e8fbc860ee5fbULL, 0x14ea5627c0843d90ULL, 0xf723ca908e7af2eeULL,
	0xa129ca6149be45e5ULL, 0x3f2acc7f57c29bdbULL,
};

int
main(void)
{
	uint8_t		key[16],
				msg[17];
	DPPrfStream s;
	int			counts[7] = {0};

	for (int i = 0; i < 16; i++)
		key[i] = (uint8_t) i;
	for (int i = 0; i < 17; i++)
		msg[i] = (uint8_t) i;
	for (int n = 0; n < 17; n++)
		CHECK(dp_siphash24(key, msg, (size_t) n) == vectors[n],
			  "SipHash-2-4 of %d bytes: %016llx, not the reference's", n,
			  (unsigned long long) dp_siphash24(key, msg, (size_t) n));

	/* word i is SipHash of i's 8 little-endian bytes */
	dp_prf_init(&s, key);
	for (uint64_t i = 0; i < 1000; i++)
	{
		uint8_t		le[8];

		for (int b = 0; b < 8; b++)
			le[b] = (uint8_t) (i >> (8 * b));
		CHECK(dp_prf_next(&s) == dp_siphash24(key, le, 8), "word %llu", (unsigned long long) i);
	}

	/* another key, another stream */
	key[0] ^= 1;
	dp_prf_init(&s, key);
	CHECK(dp_prf_next(&s) != dp_siphash24(msg, msg, 8), "the key changes the stream");

	/* the range draw: in range, every value, near uniform (700 000 draws of 7) */
	for (int i = 0; i < 700000; i++)
	{
		uint64_t	x = dp_prf_below(&s, 7);

		CHECK(x < 7, "dp_prf_below(7) = %llu", (unsigned long long) x);
		if (x < 7)
			counts[x]++;
	}
	for (int v = 0; v < 7; v++)
		CHECK(counts[v] > 100000 - 2000 && counts[v] < 100000 + 2000,
			  "value %d drawn %d times of 700000", v, counts[v]);
	CHECK(dp_prf_below(&s, 1) == 0, "dp_prf_below(1)");
	for (int i = 0; i < 1000; i++)
		CHECK(dp_prf_below(&s, (UINT64_C(1) << 63) + 1) <= (UINT64_C(1) << 63),
			  "dp_prf_below(2^63 + 1) out of range");
	return unitcheck_report();
}
