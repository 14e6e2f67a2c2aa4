/*
 * test_calibrate.c -- the sound OPDisc / RSPM calibration (src/core/calibrate.c,
 * docs/PRIVACY.md) without PostgreSQL:
 *   1. the calibrated sigma satisfies the radial-shift bound at the claimed
 *      delta, and 0.1 % less noise does not (it is the smallest such sigma);
 *   2. the quadrature of the bound agrees with a Monte-Carlo estimate of
 *      E[(1 - exp(eps - s rho - s^2/2))_+], rho ~ chi_k;
 *   3. it never needs more noise than the closed-form norm-concentration
 *      bound (docs/ALGORITHMS.md, "OPDisc" (a));
 *   4. the paper's sigma violates the bound where docs/ALGORITHMS.md, "OPDisc" says its
 *      constant 7 stops holding (large epsilon; gap (b)) and at d = 108;
 *   5. every search is bounded and interruptible, and refuses (NAN and a
 *      status) what it cannot compute: no zCDP level for a small epsilon
 *      against delta, infinite or denormal arguments (an alarm fails the
 *      test instead of hanging).
 * Prints "N passed, M failed".
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>

#include "core/calibrate.h"
#include "unitcheck.h"

/* ---- 5. bounded, interruptible searches ---- */

static void
on_alarm(int sig)
{
	static const char msg[] = "not ok - a calibration search did not end within its alarm\n";

	(void) sig;
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(1);
}

static int	hook_calls;
static int	hook_stop_after;

static bool
count_hook(void *arg)
{
	(void) arg;
	hook_calls++;
	return hook_stop_after > 0 && hook_calls >= hook_stop_after;
}

static void
check_bounded(void)
{
	double		r,
				s;

	signal(SIGALRM, on_alarm);
	alarm(20);

	/* no zCDP level converts to eps = 1e-6 at delta = 1e-9 (the grid's floor is ~6e-6) */
	r = zcdp_rho(1e-6, 1e-9);
	CHECK(isnan(r) && dp_calib_last_status() == DP_CALIB_INFEASIBLE,
		  "zcdp_rho(1e-6, 1e-9) = %g refused as infeasible (status %s)", r,
		  dp_calib_status_name(dp_calib_last_status()));
	CHECK(zcdp_eps(0.0, 1e-9) > 1e-6, "the grid's floor at delta 1e-9: %g", zcdp_eps(0.0, 1e-9));
	/* just above the floor a level exists and converts back within eps */
	s = 1.01 * zcdp_eps(0.0, 1e-9);
	r = zcdp_rho(s, 1e-9);
	CHECK(isfinite(r) && r > 0 && zcdp_eps(r, 1e-9) <= s && dp_calib_last_status() == DP_CALIB_OK,
		  "zcdp_rho just above the floor (%g): %g", s, r);
	r = zcdp_rho(INFINITY, 1e-6);
	CHECK(isnan(r) && dp_calib_last_status() == DP_CALIB_INVALID, "zcdp_rho(inf) refused");
	r = zcdp_rho(1e300, 1e-6);
	CHECK(isfinite(r) || isnan(r), "zcdp_rho(1e300) ends: %g (%s)", r,
		  dp_calib_status_name(dp_calib_last_status()));
	CHECK(isnan(zcdp_rho(1, 0)) && isnan(zcdp_rho(1, 1)) && isnan(zcdp_rho(NAN, 1e-6)),
		  "zcdp_rho refuses delta outside (0, 1) and a NaN epsilon");

	/* denormal and huge arguments: NAN with a status, never 0 or inf */
	s = opdisc_sigma(1e-320, 1e-6, 3, 3, DP_CALIBRATION_SOUND);
	CHECK(isnan(s) && dp_calib_last_status() != DP_CALIB_OK, "opdisc eps 1e-320: %g", s);
	s = opdisc_sigma(1, 5e-324, 3, 3, DP_CALIBRATION_SOUND);
	CHECK(isnan(s) && dp_calib_last_status() != DP_CALIB_OK, "opdisc delta 5e-324: %g", s);
	s = rspm_sigma(5e-324, 1e-6, 3, DP_CALIBRATION_PAPER);
	CHECK(isnan(s) && dp_calib_last_status() == DP_CALIB_NUMERIC, "paper rspm eps 5e-324: %g", s);
	s = opdisc_sigma(1e300, 1e-6, 3, 3, DP_CALIBRATION_SOUND);
	CHECK(isnan(s) || (isfinite(s) && s > 0), "opdisc eps 1e300 ends: %g", s);

	/* the hook runs between quadratures, at most DP_CALIB_MAX_EVALS times */
	dp_calib_set_interrupt(count_hook, NULL);
	hook_calls = 0;
	hook_stop_after = 0;
	s = rspm_sigma(0.5, 1e-6, 23, DP_CALIBRATION_SOUND);
	CHECK(isfinite(s) && hook_calls > 10 && hook_calls <= DP_CALIB_MAX_EVALS,
		  "a full search polls the hook %d times", hook_calls);
	hook_calls = 0;
	hook_stop_after = 3;
	/* other arguments: the same ones would be answered by the memo, no search */
	s = rspm_sigma(0.5, 1e-6, 22, DP_CALIBRATION_SOUND);
	CHECK(isnan(s) && hook_calls == 3 && dp_calib_last_status() == DP_CALIB_INTERRUPTED,
		  "a hook that asks to stop ends the search at once (%d calls, %s)", hook_calls,
		  dp_calib_status_name(dp_calib_last_status()));
	dp_calib_set_interrupt(NULL, NULL);
	s = rspm_sigma(0.5, 1e-6, 23, DP_CALIBRATION_SOUND);
	CHECK(isfinite(s) && dp_calib_last_status() == DP_CALIB_OK, "without the hook again: %g", s);

	alarm(0);
}

/*
 * OPDisc and RSPM draw their noise on a lattice: sigma covers (RS) at the
 * budget left after the coupling (eps0 = eps - 2 eta - omega, delta0) with
 * OPDisc's shift c (1 + kappa), and is minimal there; the continuous sigma
 * at (eps, delta) is off it by less than kappa + 0.1 %.
 */
static void
check_minimal(double eps, double delta, int d)
{
	int			D2 = d;
	double		s = opdisc_sigma(eps, delta, d, D2, DP_CALIBRATION_SOUND);
	/* the shift's margin kappa: 2^-10 unless the lattice needs more (calibrate.c) */
	int			e = 10;
	double		c;
	double		r = rspm_sigma(eps, delta, d, DP_CALIBRATION_SOUND);
	double		cr = 2.0 * sqrt(2.0 * d);
	double		delta0;
	double		eps1 = eps - dp_lattice_cost(eps, delta, &delta0);
	double		eps0s = eps1 - sqrt(2.0 * (eps1 + 1.0)) * sqrt(d + 1.0) * ldexp(1.0, -28);
	double		eps0r = eps1 - sqrt(2.0 * (eps1 + 1.0)) * sqrt(2.0 * d) * ldexp(1.0, -28);

	while (e > 4 && ldexp(s, -27) * (sqrt((double) D2) + 0.5) * sqrt(d + 1.0) > ldexp(4.0 * D2, -e))
		e -= 2;
	c = 4.0 * D2 * (1.0 + ldexp(1.0, -e));
	CHECK(eps0s < eps && eps0s > eps - 1e-6 && delta0 < delta && delta0 > delta * (1 - 1e-5),
		  "lattice cost eps=%g delta=%g d=%d: off 1e-6 of eps, 1e-5 of delta", eps, delta, d);
	CHECK(isfinite(s) && dp_shift_delta(eps0s, s, c, d + 1) <= delta0,
		  "opdisc eps=%g delta=%g d=%d: sigma %g covers delta", eps, delta, d, s);
	CHECK(dp_shift_delta(eps0s, 0.999 * s, c, d + 1) > delta0,
		  "opdisc eps=%g delta=%g d=%d: 0.999 sigma does not", eps, delta, d);
	CHECK(s <= dp_shift_sigma_closed(eps0s, delta0, c, d + 1) * (1 + 1e-9) &&
		  s <= dp_shift_sigma(eps, delta, 4.0 * D2, d + 1) * (1.001 + ldexp(1.0, -e)),
		  "opdisc eps=%g delta=%g d=%d: not above the closed form, kappa + 0.1 %% above continuous",
		  eps, delta, d);
	CHECK(isfinite(r) && dp_shift_delta(eps0r, r, cr, 2 * d) <= delta0,
		  "rspm eps=%g delta=%g d=%d: sigma %g covers delta", eps, delta, d, r);
	CHECK(dp_shift_delta(eps0r, 0.999 * r, cr, 2 * d) > delta0,
		  "rspm eps=%g delta=%g d=%d: 0.999 sigma does not", eps, delta, d);
}

/*
 * The coupling's per-coordinate bounds (dp_lattice_cost, docs/PRIVACY.md
 * "Lattice noise in an objective"), checked where doubles resolve them
 * (s = 8 .. 64; the mechanisms have s >= 2^27): on |k| <= m s,
 * |ln(N_Z(0, s^2)(k) / P[round(s G) = k])| <= (m^2 + 3) / (24 s^2), and
 * beyond it each law's mass is at most e^-((m - 1)^2 / 2).
 */
static void
check_lattice_ratio(double s, double m)
{
	double		N = 0,
				worst = 0,
				tail_dg = 0,
				tail_rg;
	long		K = (long) ceil(40 * s);

	for (long k = -K; k <= K; k++)
		N += exp(-(double) k * k / (2 * s * s));
	for (long k = -K; k <= K; k++)
	{
		double		pdg = exp(-(double) k * k / (2 * s * s)) / N;
		double		prg = fabs(gsl_cdf_ugaussian_Q((fabs((double) k) - 0.5) / s) -
							   gsl_cdf_ugaussian_Q((fabs((double) k) + 0.5) / s));

		if (fabs((double) k) <= m * s)
			worst = fmax(worst, fabs(log(pdg / prg)));
		else
			tail_dg += pdg;
	}
	tail_rg = 2 * gsl_cdf_ugaussian_Q((floor(m * s) + 0.5) / s);
	CHECK(worst <= (m * m + 3) / (24 * s * s),
		  "lattice ratio s=%g m=%g: %g above (m^2 + 3) / (24 s^2) = %g", s, m, worst,
		  (m * m + 3) / (24 * s * s));
	CHECK(tail_dg <= exp(-(m - 1) * (m - 1) / 2) && tail_rg <= exp(-(m - 1) * (m - 1) / 2),
		  "lattice tails s=%g m=%g: %g, %g above e^-((m-1)^2/2)", s, m, tail_dg, tail_rg);
}

/* Monte-Carlo estimate of the bound with 4e6 draws of rho ~ chi_k */
static void
check_monte_carlo(double eps, double sigma, double c, int k, gsl_rng *rng)
{
	const int	N = 4000000;
	double		s = c / sigma;
	double		sum = 0,
				sum2 = 0,
				mean,
				se,
				quad;

	for (int i = 0; i < N; i++)
	{
		double		rho = sqrt(gsl_ran_chisq(rng, k));
		double		g = -expm1(eps - s * rho - 0.5 * s * s);

		if (g < 0)
			g = 0;
		sum += g;
		sum2 += g * g;
	}
	mean = sum / N;
	se = sqrt((sum2 / N - mean * mean) / N);
	quad = dp_shift_delta(eps, sigma, c, k);
	CHECK(fabs(quad - mean) <= 5 * se + 1e-12,
		  "quadrature %.6g vs Monte-Carlo %.6g +- %.2g (eps=%g sigma=%g c=%g k=%d)",
		  quad, mean, se, eps, sigma, c, k);
}

/*
 * k = 2 has a closed form (rho density rho e^{-rho^2/2}):
 *   delta = e^{-r0^2/2} - e^{eps} [e^{-(r0+s)^2/2} - s sqrt(2 pi) Q(r0+s)],
 *   r0 = max(0, (eps - s^2/2) / s), Q = upper normal tail.
 */
static double
shift_delta_k2(double eps, double sigma, double c)
{
	double		s = c / sigma;
	double		r0 = (eps - 0.5 * s * s) / s;

	if (r0 < 0)
		r0 = 0;
	return exp(-0.5 * r0 * r0) -
		exp(eps) * (exp(-0.5 * (r0 + s) * (r0 + s)) -
					s * 2.5066282746310002 * 0.5 * erfc((r0 + s) / 1.4142135623730951));
}

/*
 * dp_jacobian_epsilon (calibrate.h): at least k ln(1 + beta R^2 / Lambda) for
 * the double inputs, computed in long double (64-bit significand: its error,
 * about 2^-62 relative, is far off a double's ulp), and within 2^-46 of it.
 * Rounding to nearest, as before, falls off it in about half the cases.
 */
static void
check_jacobian_epsilon(void)
{
	int			off = 0;

	for (int i = 0; i < 2000; i++)
	{
		double		beta = 0.25 * (1 + (unitcheck_next64() >> 11) * 0x1p-53),
					R = ldexp(1 + (unitcheck_next64() >> 11) * 0x1p-53, (int) (i % 9) - 4),
					Lambda = ldexp(1 + (unitcheck_next64() >> 11) * 0x1p-53, (int) (i % 13) - 6);
		int			k = 1 + i % 4;
		long double exact = (long double) k *
			log1pl((long double) beta * (long double) R * (long double) R / (long double) Lambda);
		double		e = dp_jacobian_epsilon(beta, R, Lambda, k);

		if ((long double) e < exact || (long double) e > exact * (1 + 0x1p-46L))
			off++;
	}
	CHECK(off == 0, "dp_jacobian_epsilon: %d of 2000 not in [exact, exact (1 + 2^-46)]", off);
	CHECK(dp_jacobian_epsilon(0, 1, 1, 3) == 0, "dp_jacobian_epsilon: beta = 0 costs 0");
}

/* Objective-Gauss: sigma covers delta at eps - eps_J, minimal, closed form */
static void
check_objgauss(double eps, double delta, double R, double beta)
{
	double		Lambda = 2 * beta * R * R / eps;	/* the default minimum */
	double		epsj = log1p(beta * R * R / Lambda);
	double		s = objgauss_sigma(eps, delta, 1.0, R, beta, Lambda);
	double		q = shift_delta_k2(eps - epsj, s, 2 * R);

	CHECK(isfinite(s) && q <= delta * (1 + 1e-6),
		  "objgauss eps=%g delta=%g R=%g: closed-form delta %g <= %g", eps, delta, R, q, delta);
	CHECK(shift_delta_k2(eps - epsj, 0.999 * s, 2 * R) > delta,
		  "objgauss eps=%g delta=%g R=%g: 0.999 sigma is not enough", eps, delta, R);
	CHECK(fabs(dp_shift_delta(eps - epsj, s, 2 * R, 2) - q) <= 1e-9 * delta + 1e-14,
		  "objgauss eps=%g delta=%g R=%g: quadrature = closed form", eps, delta, R);
}

/*
 * objgauss_sigma_start / dp_shift_sigma_floor (calibrate.h): the search
 * refuses exactly where its start does, else returns a value between the
 * floor and the start; one row is objgauss_sigma, bit for bit.  Over
 * "R": "private"'s candidates R = 2^(i/4), with and without an intercept,
 * default and declared Lambda, units of k rows; and inputs it refuses.
 */
static void
check_objgauss_start(double eps, double delta, double R, double Lambda, int k, int p)
{
	double		lam = Lambda > 0 ? Lambda : 2.0 * k * 0.25 * R * R / eps;
	double		s1 = objgauss_sigma_start(eps, delta, 1.0, R, 0.25, lam, k, p);
	double		s = objgauss_sigma_rows(eps, delta, 1.0, R, 0.25, lam, k, p);

	if (isnan(s1))
	{
		CHECK(isnan(s), "objgauss start eps=%g R=%g Lambda=%g k=%d: refused by the start, "
			  "not by the search", eps, R, lam, k);
		return;
	}
	CHECK(s1 > 0 && dp_shift_sigma_floor(s1) == ldexp(s1, -60) &&
		  s >= dp_shift_sigma_floor(s1) && s <= s1,
		  "objgauss start eps=%g R=%g Lambda=%g k=%d: sigma %.17g in [floor, start %.17g]",
		  eps, R, lam, k, s, s1);
	if (k == 1)
		CHECK(s == objgauss_sigma(eps, delta, 1.0, R, 0.25, lam) &&
			  s1 == objgauss_sigma_start(eps, delta, 1.0, R, 0.25, lam, 1, 7),
			  "objgauss start eps=%g R=%g: one row is objgauss_sigma's", eps, R);
}

static void
check_objgauss_starts(void)
{
	for (int i = -64; i <= 80; i += 9)
	{
		double		R = pow(2.0, i / 4.0);
		double		Reff = sqrt(R * R + 1.0);

		check_objgauss_start(0.99 * 0.9, 1e-6, R, -1, 1, 3);
		check_objgauss_start(0.99 * 0.9, 1e-6, Reff, -1, 1, 3);
		check_objgauss_start(4.0, 1e-9, Reff, 2.0 * 0.25 * pow(2.0, 40) / 3.0, 1, 3);
		check_objgauss_start(0.5, 1e-5, R, -1, 3, 24);
	}
	/* refused: the Jacobian factor alone exceeds eps; delta outside (0, 1) */
	check_objgauss_start(0.1, 1e-6, 1.0, 1e-3, 1, 2);
	check_objgauss_start(1.0, 1.5, 1.0, -1, 1, 2);
	CHECK(isnan(objgauss_sigma_start(0.1, 1e-6, 1.0, 1.0, 0.25, 1e-3, 1, 2)) &&
		  dp_calib_last_status() == DP_CALIB_INFEASIBLE,
		  "objgauss start: infeasible eps refused with its status");
}

/*
 * dp_shift_sigma keeps its last results: a repeated call returns the
 * search's value bit for bit, also once other arguments have evicted it
 * (searched again), and arguments that differ in one place are not
 * answered from the kept value.
 */
static void
check_memo(void)
{
	double		a = dp_shift_sigma(0.7, 1e-6, 3.0, 4);
	double		hit = dp_shift_sigma(0.7, 1e-6, 3.0, 4);
	double		again;

	for (int i = 1; i <= 20; i++)
		(void) dp_shift_sigma(0.7 + i / 64.0, 1e-6, 3.0, 4);
	again = dp_shift_sigma(0.7, 1e-6, 3.0, 4);
	CHECK(isfinite(a) && a == hit && a == again && dp_calib_last_status() == DP_CALIB_OK,
		  "memo: %.17g, kept %.17g, searched again %.17g", a, hit, again);
	CHECK(dp_shift_sigma(0.7, 1e-6, 3.0, 5) > a && dp_shift_sigma(0.7, 1e-7, 3.0, 4) > a &&
		  dp_shift_sigma(0.7, 1e-6, 3.5, 4) > a && dp_shift_sigma(0.8, 1e-6, 3.0, 4) < a,
		  "memo: k, delta, c and eps each change the value");
	CHECK(isnan(dp_shift_sigma(-1.0, 1e-6, 3.0, 4)) && dp_calib_last_status() == DP_CALIB_INVALID &&
		  dp_shift_sigma(0.7, 1e-6, 3.0, 4) == a && dp_calib_last_status() == DP_CALIB_OK,
		  "memo: a hit sets the status");
}

/*
 * The budget splits in exact arithmetic (fma's sign and TwoSum are exact):
 * k parts of dp_budget_part(total, k) sum to at most total, the rest fits
 * beside the used share, a scale times eps is at least num.  The cases
 * include the adversarial ones where total / k rounded to nearest exceeds
 * total / k (0.1 / 7, 1e-9 / 3, 5 / 3 ...): the plain quotient fails there.
 */
static void
check_budget_splits(void)
{
	const double totals[] = {0.1, 1e-9, 1e-9 / 3, 0.3, 1.0 / 3, 5, 1e-6, 0.7};
	const int	ks[] = {2, 3, 6, 7, 10, 11, 49, 100};
	int			naive_over = 0;

	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 8; j++)
		{
			double		t = totals[i],
						x = dp_budget_part(t, ks[j]);

			naive_over += fma(t / ks[j], (double) ks[j], -t) > 0;
			CHECK(x > 0 && fma(x, (double) ks[j], -t) <= 0 &&
				  fma(nextafter(x, INFINITY), (double) ks[j], -t) > 0,
				  "dp_budget_part(%g, %d) = %.17g: not the largest share whose K copies fit",
				  t, ks[j], x);
			for (int m = 0; m < 8; m++)
			{
				double		used = totals[m] < t ? totals[m] : t * 0.01;
				double		r = dp_budget_rest(t, used);

				CHECK(r > 0 && dp_budget_fits(used, r, t) &&
					  !dp_budget_fits(used, nextafter(r, INFINITY), t),
					  "dp_budget_rest(%g, %g) = %.17g", t, used, r);
			}
			CHECK(fma(dp_scale_up(2.0, t), t, -2.0) >= 0 &&
				  fma(nextafter(dp_scale_up(2.0, t), 0), t, -2.0) < 0,
				  "dp_scale_up(2, %g) not 2 / eps rounded up", t);
		}
	CHECK(naive_over == 19, "the plain quotient overcharges in %d cases, not 19", naive_over);
	CHECK(!dp_budget_fits(0.1, 0.2, 0.3) && dp_budget_fits(0.1, 0.2, 0.30000000000000004),
		  "dp_budget_fits: 0.1 + 0.2 exceeds 0.3 exactly, not its rounded sum");
	/* Objective-Gauss at eps = 5: 5 - 0.01 * 5 rounded to nearest exceeds it */
	CHECK(dp_budget_rest(5, 0.01 * 5) < 5 - 0.01 * 5 && !dp_budget_fits(0.05, 5 - 0.05, 5),
		  "dp_budget_rest(5, 0.05): the rounded difference overcharges, stepped down");
}

int
main(void)
{
	const double eps_list[] = {0.01, 0.1, 0.5, 1, 2, 5, 20};
	const int	d_list[] = {1, 3, 23, 64, 108};
	gsl_rng    *rng = gsl_rng_alloc(gsl_rng_mt19937);

	gsl_rng_set(rng, 12345);
	check_memo();
	check_budget_splits();
	check_jacobian_epsilon();
	for (double s = 8; s <= 64; s *= 2)
		for (double m = 2; m <= 6; m += 2)
			check_lattice_ratio(s, m);
	for (int i = 0; i < 7; i++)
		for (int j = 0; j < 5; j++)
		{
			check_minimal(eps_list[i], 1.0 / (15682.0 * 15682.0), d_list[j]);
			check_minimal(eps_list[i], 1e-5, d_list[j]);
		}

	for (int i = 1; i < 7; i++)
	{
		check_objgauss(eps_list[i], 1e-9, 1.0, 0.25);
		check_objgauss(eps_list[i], 1e-6, sqrt(5.0), 1.0);
	}
	CHECK(isnan(objgauss_sigma(1, 1e-6, 1, 1, 0.25, 1.0)) == false &&
		  isnan(objgauss_sigma(0.1, 1e-6, 1, 1, 100, 1e-3)),
		  "objgauss refuses when the Jacobian factor alone exceeds epsilon");

	/*
	 * zCDP: Bun-Steinke's closed form converts back exactly; zcdp_rho is the
	 * largest rho whose conversion (Balle et al. 2020 Thm 21) stays within
	 * eps, at least Bun-Steinke's rho, and grows with eps.  The conversion is
	 * checked independently at the order alpha* = 1 + sqrt(ln(1/delta)/rho).
	 */
	for (int i = 0; i < 7; i++)
	{
		double		eps = eps_list[i];
		double		bs = zcdp_rho_bun_steinke(eps, 1e-6),
					e = bs + 2 * sqrt(bs * log(1e6));
		double		r = zcdp_rho(eps, 1e-6);
		double		a = 1 + sqrt(log(1e6) / r);
		double		ea = a * r + (log(1e6) + (a - 1) * log(1 - 1 / a) - log(a)) / (a - 1);

		CHECK(fabs(e - eps) <= 1e-12 * eps, "Bun-Steinke rho(%g) converts back to %.17g", eps, e);
		CHECK(r >= bs && zcdp_eps(r, 1e-6) <= eps && zcdp_eps(r * (1 + 1e-9), 1e-6) > eps &&
			  zcdp_eps(r, 1e-6) <= ea + 1e-12 && zcdp_eps(bs, 1e-6) <= eps &&
			  (i == 0 || r > zcdp_rho(eps_list[i - 1], 1e-6)),
			  "zcdp_rho(%g, 1e-6) = %g (Bun-Steinke %g, eps at alpha* %g)", eps, r, bs, ea);
	}
	/* known value: at eps = 1, delta = 1e-6 the tight rho is 1.39x Bun-Steinke's */
	CHECK(fabs(zcdp_rho(1, 1e-6) / zcdp_rho_bun_steinke(1, 1e-6) - 1.394) < 0.01,
		  "tight rho at eps 1: %g", zcdp_rho(1, 1e-6));

	/* the bound itself, where delta is large enough for Monte-Carlo */
	check_monte_carlo(1.0, 92.0, 92.0, 24, rng);	/* s = 1 */
	check_monte_carlo(0.5, 300.0, 92.0, 24, rng);
	check_monte_carlo(2.0, 40.0, 2 * sqrt(46.0), 46, rng);

	/* the paper's sigma: d = 23 as in the paper; gap (b) at large epsilon */
	CHECK(fabs(opdisc_sigma(1, 1e-6, 23, 23, DP_CALIBRATION_PAPER) -
			   7.0 * 23 * sqrt(log(1e6))) < 1e-9, "paper OPDisc sigma formula");
	CHECK(dp_shift_delta(50, opdisc_sigma(50, 1e-3, 23, 23, DP_CALIBRATION_PAPER),
						 4.0 * 23, 24) > 1e-3,
		  "the paper's sigma is not DP at eps = 50, delta = 1e-3 (gap (b))");
	CHECK(dp_shift_delta(1, opdisc_sigma(1, 1.0 / (15682.0 * 15682.0), 108, 108,
										 DP_CALIBRATION_PAPER),
						 4.0 * 108, 109) > 1.0 / (15682.0 * 15682.0),
		  "the paper's sigma does not meet the bound at d = 108 (gap (a))");
	CHECK(isnan(opdisc_sigma(0, 1e-6, 3, 3, DP_CALIBRATION_SOUND)) &&
		  isnan(opdisc_sigma(1, 0, 3, 3, DP_CALIBRATION_SOUND)),
		  "invalid parameters give NAN (the mechanism refuses before the charge)");

	check_bounded();
	check_objgauss_starts();

	gsl_rng_free(rng);
	return unitcheck_report();
}
