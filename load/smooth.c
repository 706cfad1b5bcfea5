/*
 * smooth.c - exponential smoothing of the load index (thesis eq. 2.1) and
 * the report threshold.  See smooth.h.
 */
#include <math.h>

#include "smooth.h"

void
smooth_init(struct smooth *s, int64_t li_ns, int64_t w_ns, double threshold)
{
	s->q = 0.0;
	s->last_reported = 0.0;
	s->threshold = threshold;
	if (li_ns <= 0 || w_ns <= 0)
		s->d = 0.0;
	else
		s->d = exp(-(double)li_ns / (double)w_ns);
}

double
smooth_update(struct smooth *s, double q)
{
	s->q = s->q * s->d + q * (1.0 - s->d);
	return s->q;
}

int
smooth_should_report(const struct smooth *s)
{
	return fabs(s->q - s->last_reported) >= s->threshold - SMOOTH_EPS;
}

void
smooth_mark_reported(struct smooth *s)
{
	s->last_reported = s->q;
}
