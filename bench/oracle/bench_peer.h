#ifndef BENCH_PEER_H
#define BENCH_PEER_H

#include "core/opdisc.h"

#define BENCH_PEER_MAXD 128

/*
 * Solve the MPS file with "cbc FILE -sec T -threads 1 -solve -solu SOL -quit"
 * and print one line comparing CBC's answer with ref (the search's certified
 * answer); constant = the MIP's objective constant sum_u p_u.
 */
extern void bench_peer_cbc(const char *mps, double tlimit, const OPDiscResult *ref,
						   int d, double constant);

#endif
