/*-------------------------------------------------------------------------
 *
 * synthfactor.c
 *	  Tables over sets of discrete columns (synthfactor.h).  Every
 *	  broadcasting operation walks the larger table's cells in order with an
 *	  odometer that keeps the smaller table's offset.
 *
 *-------------------------------------------------------------------------
 */
#include "core/synthfactor.h"

#include <stdlib.h>
#include <string.h>

int64_t
synth_set_cells(SynthSet s, const int *sizes, int64_t limit)
{
	int64_t		cells = 1;

	for (int j = 0; j < SYNTH_MAX_COLUMNS; j++)
	{
		if (!(s & SYNTH_BIT(j)))
			continue;
		if (sizes[j] < 1 || cells > limit / sizes[j])
			return -1;
		cells *= sizes[j];
	}
	return cells;
}

static int64_t largest;

int64_t
synth_factor_largest(void)
{
	return largest;
}

void
synth_factor_largest_reset(void)
{
	largest = 0;
}

static void
factor_shape(SynthFactor *f, SynthSet s, const int *sizes)
{
	f->set = s;
	f->nvars = 0;
	f->ncells = 1;
	for (int j = 0; j < SYNTH_MAX_COLUMNS; j++)
	{
		if (!(s & SYNTH_BIT(j)))
			continue;
		f->var[f->nvars] = j;
		f->dim[f->nvars] = sizes[j];
		f->ncells *= sizes[j];
		f->nvars++;
	}
}

bool
synth_factor_init(SynthFactor *f, SynthSet s, const int *sizes, double value)
{
	factor_shape(f, s, sizes);
	if (f->ncells > largest)
		largest = f->ncells;
	f->val = malloc(sizeof(double) * (size_t) f->ncells);
	if (f->val == NULL)
		return false;
	for (int64_t i = 0; i < f->ncells; i++)
		f->val[i] = value;
	return true;
}

void
synth_factor_free(SynthFactor *f)
{
	free(f->val);
	f->val = NULL;
}

bool
synth_factor_copy(SynthFactor *dst, const SynthFactor *src)
{
	*dst = *src;
	if (src->ncells > largest)
		largest = src->ncells;
	dst->val = malloc(sizeof(double) * (size_t) src->ncells);
	if (dst->val == NULL)
		return false;
	memcpy(dst->val, src->val, sizeof(double) * (size_t) src->ncells);
	return true;
}

int64_t
synth_factor_index(const SynthFactor *f, const int *codes)
{
	int64_t		idx = 0;

	for (int i = 0; i < f->nvars; i++)
		idx = idx * f->dim[i] + codes[f->var[i]];
	return idx;
}

void
synth_factor_cell(const SynthFactor *f, int64_t index, int *codes)
{
	for (int i = f->nvars - 1; i >= 0; i--)
	{
		codes[f->var[i]] = (int) (index % f->dim[i]);
		index /= f->dim[i];
	}
}

/*
 * The strides of `small` along `big`'s columns: stride[i] is the step of
 * small's flat index when big's column i moves by one (0 when small lacks it).
 */
static void
sub_strides(const SynthFactor *big, const SynthFactor *small, int64_t *stride)
{
	for (int i = 0; i < big->nvars; i++)
	{
		int64_t		s = 0;
		int64_t		acc = 1;

		for (int k = small->nvars - 1; k >= 0; k--)
		{
			if (small->var[k] == big->var[i])
			{
				s = acc;
				break;
			}
			acc *= small->dim[k];
		}
		stride[i] = s;
	}
}

typedef enum
{
	OP_SUM_TO, OP_MUL, OP_DIV, OP_ADD
} BroadcastOp;

/*
 * big's columns as runs: adjacent columns merge when small's strides continue
 * across them (both absent, or contiguous), so the inner loop is long.
 */
static int
merged_dims(const SynthFactor *big, const int64_t *stride, int64_t *mdim, int64_t *mstride)
{
	int			n = 0;

	for (int i = 0; i < big->nvars; i++)
	{
		if (n > 0 && mstride[n - 1] == stride[i] * big->dim[i])
		{
			mdim[n - 1] *= big->dim[i];
			mstride[n - 1] = stride[i];
			continue;
		}
		mdim[n] = big->dim[i];
		mstride[n] = stride[i];
		n++;
	}
	return n;
}

static void
broadcast(SynthFactor *big, SynthFactor *small, BroadcastOp op, double scale)
{
	int64_t		stride[SYNTH_MAX_COLUMNS],
				dim[SYNTH_MAX_COLUMNS],
				mstride[SYNTH_MAX_COLUMNS];
	int64_t		idx[SYNTH_MAX_COLUMNS];
	int			n;
	int64_t		off = 0;
	int64_t		inner,
				istride;

	sub_strides(big, small, stride);
	n = merged_dims(big, stride, dim, mstride);
	inner = n > 0 ? dim[n - 1] : 1;
	istride = n > 0 ? mstride[n - 1] : 0;
	memset(idx, 0, sizeof(idx));
	if (op == OP_SUM_TO)
		memset(small->val, 0, sizeof(double) * (size_t) small->ncells);
	for (int64_t c = 0; c < big->ncells; c += inner)
	{
		double	   *b = big->val + c;
		double	   *s = small->val + off;

		/* the last run: contiguous in big, stride istride in small */
		switch (op)
		{
			case OP_SUM_TO:
				if (istride == 0)
				{
					double		acc = 0.0;

					for (int64_t t = 0; t < inner; t++)
						acc += b[t];
					s[0] += acc;
				}
				else
					for (int64_t t = 0; t < inner; t++)
						s[t * istride] += b[t];
				break;
			case OP_MUL:
				for (int64_t t = 0; t < inner; t++)
					b[t] *= s[t * istride];
				break;
			case OP_DIV:
				for (int64_t t = 0; t < inner; t++)
				{
					double		v = s[t * istride];

					b[t] = v != 0.0 ? b[t] / v : 0.0;
				}
				break;
			case OP_ADD:
				for (int64_t t = 0; t < inner; t++)
					b[t] += scale * s[t * istride];
				break;
		}
		/* advance the odometer over the other runs */
		for (int i = n - 2; i >= 0; i--)
		{
			idx[i]++;
			off += mstride[i];
			if (idx[i] < dim[i])
				break;
			off -= mstride[i] * dim[i];
			idx[i] = 0;
		}
	}
}

void
synth_factor_sum_to(const SynthFactor *src, SynthFactor *dst)
{
	broadcast((SynthFactor *) src, dst, OP_SUM_TO, 0.0);
}

void
synth_factor_mul(SynthFactor *dst, const SynthFactor *src)
{
	broadcast(dst, (SynthFactor *) src, OP_MUL, 0.0);
}

void
synth_factor_div(SynthFactor *dst, const SynthFactor *src)
{
	broadcast(dst, (SynthFactor *) src, OP_DIV, 0.0);
}

void
synth_factor_add(SynthFactor *dst, const SynthFactor *src, double scale)
{
	broadcast(dst, (SynthFactor *) src, OP_ADD, scale);
}

bool
synth_factor_product(const SynthFactor *a, const SynthFactor *b, const int *sizes,
					 SynthFactor *out)
{
	if (!synth_factor_init(out, a->set | b->set, sizes, 1.0))
		return false;
	synth_factor_mul(out, a);
	synth_factor_mul(out, b);
	return true;
}

double
synth_factor_total(const SynthFactor *f)
{
	double		t = 0.0;

	for (int64_t i = 0; i < f->ncells; i++)
		t += f->val[i];
	return t;
}

void
synth_factor_scale(SynthFactor *f, double s)
{
	for (int64_t i = 0; i < f->ncells; i++)
		f->val[i] *= s;
}
