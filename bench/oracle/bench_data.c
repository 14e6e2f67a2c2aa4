/*-------------------------------------------------------------------------
 *
 * bench_data.c
 *	  Data sets of the standalone oracle benchmark: the Adult feature ladder
 *	  and synthetic dense continuous tables.  No PostgreSQL.
 *
 * Adult: UCI Adult (Becker & Kohavi 1996, CC BY 4.0), adult.data.  Subsets:
 *	 bal  = all 7841 rows with income ">50K" (label +1) plus 7841 rows with
 *			"<=50K" drawn without replacement by a seeded Fisher-Yates shuffle
 *			(splitmix64, sample seed, default 1), n = 15682 (the paper's);
 *	 full = every row of adult.data, n = 32561.
 * Features: one-hot in the category order of adult.names (a missing value
 * "?" is all-zero in its group), continuous features scaled to [0, 1]:
 * capital-gain / 99999, capital-loss / 4356, hours-per-week / 99.
 *	 d4	  = sex(2) + capital-gain + hours
 *	 d9	  = race(5) + sex + capital-gain + hours
 *	 d15  = relationship(6) + race + sex + capital-gain + hours
 *	 d23  = marital-status(7) + relationship + race + sex + capital-gain,
 *			capital-loss, hours                              (the paper's set)
 *	 d40  = d23 + workclass(8) + age in 9 buckets (<=24, 25-29, ..., 50-54,
 *			55-64, >=65)
 *	 d64  = d40 + occupation(14) + education-num in 10 buckets (1-4, 5-8, 9,
 *			10, ..., 16)
 *	 d108 = every attribute but fnlwgt: d23 + workclass(8) + age in 6
 *			buckets (<=25, 26-35, 36-45, 46-55, 56-65, >=66) + education(16)
 *			+ occupation(14) + native-country(41)
 * Synthetic cN (N = 2..BENCH_MAXD): rows x_j ~ U(-1, 1) i.i.d. (seeded by
 * the sample seed), label sign(<w*, x> + e) with w* ~ N(0, I_N) drawn once
 * (seed 7) and e ~ N(0, (0.5 ||w*|| / sqrt 3)^2) (about 15 % label noise);
 * no two rows share a quantised feature vector in practice.
 * Every feature is quantised to a = round(64 x) (Q = 64) and rows are
 * deduplicated with counts p_u / q_u (docs/ALGORITHMS.md, "OPDisc").
 *
 *-------------------------------------------------------------------------
 */
#include "bench_data.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXREC 40000

static const char *workclass[] = {"Private", "Self-emp-not-inc", "Self-emp-inc",
	"Federal-gov", "Local-gov", "State-gov", "Without-pay", "Never-worked"};
static const char *education[] = {"Bachelors", "Some-college", "11th", "HS-grad",
	"Prof-school", "Assoc-acdm", "Assoc-voc", "9th", "7th-8th", "12th", "Masters",
	"1st-4th", "10th", "Doctorate", "5th-6th", "Preschool"};
static const char *marital[] = {"Married-civ-spouse", "Divorced", "Never-married",
	"Separated", "Widowed", "Married-spouse-absent", "Married-AF-spouse"};
static const char *occupation[] = {"Tech-support", "Craft-repair", "Other-service",
	"Sales", "Exec-managerial", "Prof-specialty", "Handlers-cleaners",
	"Machine-op-inspct", "Adm-clerical", "Farming-fishing", "Transport-moving",
	"Priv-house-serv", "Protective-serv", "Armed-Forces"};
static const char *relationship[] = {"Wife", "Own-child", "Husband",
	"Not-in-family", "Other-relative", "Unmarried"};
static const char *race[] = {"White", "Asian-Pac-Islander", "Amer-Indian-Eskimo",
	"Other", "Black"};
static const char *sex[] = {"Female", "Male"};
static const char *country[] = {"United-States", "Cambodia", "England",
	"Puerto-Rico", "Canada", "Germany", "Outlying-US(Guam-USVI-etc)", "India",
	"Japan", "Greece", "South", "China", "Cuba", "Iran", "Honduras",
	"Philippines", "Italy", "Poland", "Jamaica", "Vietnam", "Mexico", "Portugal",
	"Ireland", "France", "Dominican-Republic", "Laos", "Ecuador", "Taiwan",
	"Haiti", "Columbia", "Hungary", "Guatemala", "Nicaragua", "Scotland",
	"Thailand", "Yugoslavia", "El-Salvador", "Trinadad&Tobago", "Peru", "Hong",
	"Holand-Netherlands"};

#define NELEM(a) ((int) (sizeof(a) / sizeof((a)[0])))

typedef struct Rec
{
	int			age,
				workclass,
				education,
				edunum,
				marital,
				occupation,
				rel,
				race,
				sex,
				country;
	double		cg,
				cl,
				hours;
	int			label;			/* +1 / -1 */
} Rec;

uint64_t
bench_splitmix(uint64_t *st)
{
	uint64_t	z = (*st += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static double
unif(uint64_t *st)
{
	return ((double) (bench_splitmix(st) >> 11) + 0.5) / 9007199254740992.0;
}

double
bench_gauss(uint64_t *st)
{
	double		u1 = unif(st),
				u2 = unif(st);

	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* index of s in tab, -1 for "?" (missing), -2 if unknown */
static int
lookup(const char *s, const char **tab, int n)
{
	if (strcmp(s, "?") == 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (strcmp(s, tab[i]) == 0)
			return i;
	return -2;
}

static int
parse_rec(char *line, Rec *r)
{
	char	   *fld[16];
	int			nf = 0;
	char	   *s = line;

	while (nf < 16)
	{
		char	   *e = strchr(s, ',');

		while (*s == ' ')
			s++;
		fld[nf++] = s;
		if (e == NULL)
			break;
		*e = '\0';
		s = e + 1;
	}
	if (nf != 15)
		return -1;
	r->age = atoi(fld[0]);
	r->workclass = lookup(fld[1], workclass, NELEM(workclass));
	r->education = lookup(fld[3], education, NELEM(education));
	r->edunum = atoi(fld[4]);
	r->marital = lookup(fld[5], marital, NELEM(marital));
	r->occupation = lookup(fld[6], occupation, NELEM(occupation));
	r->rel = lookup(fld[7], relationship, NELEM(relationship));
	r->race = lookup(fld[8], race, NELEM(race));
	r->sex = lookup(fld[9], sex, NELEM(sex));
	r->cg = atof(fld[10]);
	r->cl = atof(fld[11]);
	r->hours = atof(fld[12]);
	r->country = lookup(fld[13], country, NELEM(country));
	r->label = strcmp(fld[14], ">50K") == 0 ? 1 : -1;
	if (r->workclass < -1 || r->education < 0 || r->marital < 0 ||
		r->occupation < -1 || r->rel < 0 || r->race < 0 || r->sex < 0 ||
		r->country < -1)
		return -2;
	return 0;
}

static int
read_adult(const char *path, Rec *recs)
{
	FILE	   *f = fopen(path, "r");
	char		line[4096];
	int			n = 0;

	if (f == NULL)
	{
		perror(path);
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL && n < MAXREC)
	{
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] == '\0')
			continue;
		if (parse_rec(line, &recs[n]) == -2)
		{
			fprintf(stderr, "bad record in %s: %s\n", path, line);
			fclose(f);
			return -1;
		}
		n++;
	}
	fclose(f);
	return n;
}

static int
onehot(double *x, int d, int v, int k)
{
	for (int i = 0; i < k; i++)
		x[d + i] = (v == i);
	return d + k;
}

static int
bucket(int v, const int *upper, int k)
{
	for (int i = 0; i < k - 1; i++)
		if (v <= upper[i])
			return i;
	return k - 1;
}

/* encode one record as set; returns d, or -1 for an unknown set */
static int
encode(const Rec *r, const char *set, double *x)
{
	static const int age9[] = {24, 29, 34, 39, 44, 49, 54, 64};
	static const int age6[] = {25, 35, 45, 55, 65};
	static const int edu10[] = {4, 8, 9, 10, 11, 12, 13, 14, 15};
	bool		d23 = strcmp(set, "d23") == 0 || strcmp(set, "d40") == 0 ||
		strcmp(set, "d64") == 0 || strcmp(set, "d108") == 0;
	int			d = 0;

	if (!d23 && strcmp(set, "d4") != 0 && strcmp(set, "d9") != 0 &&
		strcmp(set, "d15") != 0)
		return -1;
	if (d23)
		d = onehot(x, d, r->marital, NELEM(marital));
	if (d23 || strcmp(set, "d15") == 0)
		d = onehot(x, d, r->rel, NELEM(relationship));
	if (strcmp(set, "d4") != 0)
		d = onehot(x, d, r->race, NELEM(race));
	d = onehot(x, d, r->sex, NELEM(sex));
	x[d++] = r->cg / 99999.0;
	if (d23)
		x[d++] = r->cl / 4356.0;
	x[d++] = r->hours / 99.0;
	if (strcmp(set, "d40") == 0 || strcmp(set, "d64") == 0)
	{
		d = onehot(x, d, r->workclass, NELEM(workclass));
		d = onehot(x, d, bucket(r->age, age9, 9), 9);
	}
	if (strcmp(set, "d64") == 0)
	{
		d = onehot(x, d, r->occupation, NELEM(occupation));
		d = onehot(x, d, bucket(r->edunum, edu10, 10), 10);
	}
	if (strcmp(set, "d108") == 0)
	{
		d = onehot(x, d, r->workclass, NELEM(workclass));
		d = onehot(x, d, bucket(r->age, age6, 6), 6);
		d = onehot(x, d, r->education, NELEM(education));
		d = onehot(x, d, r->occupation, NELEM(occupation));
		d = onehot(x, d, r->country, NELEM(country));
	}
	return d;
}

static int	cmp_d;

static int
row_cmp(const void *a, const void *b)
{
	const int64_t *x = a,
			   *y = b;

	for (int j = 0; j < cmp_d; j++)
		if (x[j] != y[j])
			return x[j] < y[j] ? -1 : 1;
	return 0;
}

/*
 * rows: n x (d + 1), quantised features then the label; sorts them and
 * fills bd's distinct rows with counts.
 */
static int
dedup(int64_t *rows, int n, int d, BenchData *bd)
{
	cmp_d = d;
	qsort(rows, (size_t) n, sizeof(int64_t) * (d + 1), row_cmp);
	bd->x = malloc(sizeof(int64_t) * (size_t) (n > 0 ? n : 1) * (size_t) d);
	bd->pos = calloc((size_t) (n > 0 ? n : 1), sizeof(int64_t));
	bd->neg = calloc((size_t) (n > 0 ? n : 1), sizeof(int64_t));
	if (bd->x == NULL || bd->pos == NULL || bd->neg == NULL)
		return -1;
	bd->d = d;
	bd->n = n;
	bd->nrows = 0;
	bd->npos = 0;
	for (int i = 0; i < n; i++)
	{
		int64_t    *r = rows + (int64_t) i * (d + 1);

		if (i == 0 || row_cmp(r, r - (d + 1)) != 0)
		{
			memcpy(bd->x + (int64_t) bd->nrows * d, r, sizeof(int64_t) * d);
			bd->nrows++;
		}
		if (r[d] > 0)
		{
			bd->pos[bd->nrows - 1]++;
			bd->npos++;
		}
		else
			bd->neg[bd->nrows - 1]++;
	}
	return 0;
}

static int
load_adult(const char *path, const char *set, const char *subset,
		   uint64_t sample_seed, BenchData *bd)
{
	static Rec	recs[MAXREC];
	static Rec	sel[MAXREC];
	int			nrec = read_adult(path, recs);
	int			nsel = 0,
				d;
	double		xv[BENCH_MAXD];
	int64_t    *rows;
	int			rc;

	if (nrec <= 0)
		return -1;
	if (strcmp(subset, "full") == 0)
	{
		memcpy(sel, recs, sizeof(Rec) * nrec);
		nsel = nrec;
	}
	else if (strcmp(subset, "bal") == 0)
	{
		int		   *negidx = malloc(sizeof(int) * nrec);
		int			npos = 0,
					nneg = 0;
		uint64_t	st = sample_seed;

		if (negidx == NULL)
			return -1;
		for (int i = 0; i < nrec; i++)
		{
			if (recs[i].label > 0)
			{
				sel[nsel++] = recs[i];
				npos++;
			}
			else
				negidx[nneg++] = i;
		}
		for (int i = 0; i < npos && i < nneg; i++)
		{
			int			j = i + (int) (bench_splitmix(&st) % (uint64_t) (nneg - i));
			int			t = negidx[i];

			negidx[i] = negidx[j];
			negidx[j] = t;
			sel[nsel++] = recs[negidx[i]];
		}
		free(negidx);
	}
	else
	{
		fprintf(stderr, "unknown Adult subset \"%s\" (bal or full)\n", subset);
		return -1;
	}
	d = encode(&sel[0], set, xv);
	if (d < 0)
	{
		fprintf(stderr, "unknown feature set \"%s\"\n", set);
		return -1;
	}
	rows = malloc(sizeof(int64_t) * (size_t) nsel * (d + 1));
	if (rows == NULL)
		return -1;
	for (int i = 0; i < nsel; i++)
	{
		encode(&sel[i], set, xv);
		for (int j = 0; j < d; j++)
			rows[(int64_t) i * (d + 1) + j] = (int64_t) llround(64.0 * xv[j]);
		rows[(int64_t) i * (d + 1) + d] = sel[i].label;
	}
	rc = dedup(rows, nsel, d, bd);
	free(rows);
	snprintf(bd->desc, sizeof(bd->desc), "adult %s %s (sample seed %llu)", set, subset,
			 (unsigned long long) sample_seed);
	return rc;
}

static int
load_synthetic(int d, const char *subset, uint64_t sample_seed, BenchData *bd)
{
	int			n = atoi(subset);
	double		wstar[BENCH_MAXD],
				wn = 0.0;
	uint64_t	st = 7;
	int64_t    *rows;
	int			rc;

	if (n <= 0 || n > 10000000)
	{
		fprintf(stderr, "synthetic sets take the row count as subset, not \"%s\"\n", subset);
		return -1;
	}
	for (int j = 0; j < d; j++)
	{
		wstar[j] = bench_gauss(&st);
		wn += wstar[j] * wstar[j];
	}
	wn = sqrt(wn);
	rows = malloc(sizeof(int64_t) * (size_t) n * (d + 1));
	if (rows == NULL)
		return -1;
	st = sample_seed * 0x1000193ULL + 11;
	for (int i = 0; i < n; i++)
	{
		double		s = 0.0;

		for (int j = 0; j < d; j++)
		{
			double		xj = 2.0 * unif(&st) - 1.0;
			int64_t		a = (int64_t) llround(64.0 * xj);

			rows[(int64_t) i * (d + 1) + j] = a;
			s += wstar[j] * (double) a / 64.0;
		}
		s += 0.5 * wn / sqrt(3.0) * bench_gauss(&st);
		rows[(int64_t) i * (d + 1) + d] = s > 0 ? 1 : -1;
	}
	rc = dedup(rows, n, d, bd);
	free(rows);
	snprintf(bd->desc, sizeof(bd->desc), "synthetic dense c%d, %d rows (sample seed %llu)",
			 d, n, (unsigned long long) sample_seed);
	return rc;
}

int
bench_load(const char *path, const char *set, const char *subset,
		   uint64_t sample_seed, BenchData *bd)
{
	memset(bd, 0, sizeof(*bd));
	if (set[0] == 'c')
	{
		int			d = atoi(set + 1);

		if (d < 2 || d > BENCH_MAXD)
		{
			fprintf(stderr, "synthetic set %s: need 2 <= N <= %d\n", set, BENCH_MAXD);
			return -1;
		}
		return load_synthetic(d, subset, sample_seed, bd);
	}
	return load_adult(path, set, subset, sample_seed, bd);
}

void
bench_free(BenchData *bd)
{
	free(bd->x);
	free(bd->pos);
	free(bd->neg);
	memset(bd, 0, sizeof(*bd));
}
