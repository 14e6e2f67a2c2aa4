/*
 * synthio.c -- the bench drivers' input (synthio.h).
 */
#include "synthio.h"

#include <stdio.h>
#include <stdlib.h>

int
synthio_domain(const char *path, char names[][64], int *levels)
{
	FILE	   *f = fopen(path, "r");
	char		line[256];
	int			d = 0;

	if (!f)
		return -1;
	while (d < SYNTH_MAX_COLUMNS && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %d", names[d], &levels[d]) == 2)
			d++;
	fclose(f);
	return d;
}

int64_t
synthio_rows(const char *path, int d, int **rows)
{
	FILE	   *f = fopen(path, "r");
	char		line[65536];
	int64_t		n = 0,
				cap = 1024;

	if (!f || !fgets(line, sizeof(line), f))
		return -1;
	*rows = malloc(sizeof(int) * cap * d);
	while (fgets(line, sizeof(line), f))
	{
		char	   *p = line;

		if (n == cap)
			*rows = realloc(*rows, sizeof(int) * (cap *= 2) * d);
		for (int j = 0; j < d; j++)
		{
			(*rows)[n * d + j] = (int) strtol(p, &p, 10);
			if (*p == ',')
				p++;
		}
		n++;
	}
	fclose(f);
	return n;
}

int
synthio_workload(const char *path, SynthSet *w, int max)
{
	FILE	   *f = fopen(path, "r");
	char		line[1024];
	int			n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && n < max)
	{
		char	   *p = line,
				   *q;
		SynthSet	s = 0;

		for (long v = strtol(p, &q, 10); q != p; p = q, v = strtol(p, &q, 10))
			s |= SYNTH_BIT(v);
		if (s)
			w[n++] = s;
	}
	fclose(f);
	return n;
}
