/*
 * synthio.h -- the bench drivers' input (bench only): a domain file ("name levels
 * [kind]" lines), a CSV of codes under a header of names, a workload file (one set of
 * column indices a line).
 */
#ifndef SYNTHIO_H
#define SYNTHIO_H

#include <stdint.h>

#include "core/synthfactor.h"

/* the columns' names and levels; their count, or -1 */
extern int	synthio_domain(const char *path, char names[][64], int *levels);

/* the rows as codes (malloc'd, row-major); their count, or -1 */
extern int64_t synthio_rows(const char *path, int d, int **rows);

/* at most max sets into w; their count, or -1 */
extern int	synthio_workload(const char *path, SynthSet *w, int max);

#endif
