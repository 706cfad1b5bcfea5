/*
 * conf_fmt.c - the values and ranges of dts.conf keys as text, for error
 * messages and the dump.  The lowest layer of the module (conf_fmt.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf_fmt.h"
#include "timeutil.h"

const char *
conffmt_float(double v, char *buf, size_t len)
{
	int	 prec;

	if (v == floor(v) && fabs(v) < 1e15) {
		snprintf(buf, len, "%.0f", v);
		return buf;
	}
	for (prec = 1; prec < 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (prec == 17)
		snprintf(buf, len, "%.17g", v);
	return buf;
}

const char *
conffmt_bound(const struct conf_key *k, double v, char *buf, size_t len)
{
	if (k->type == CT_DURATION || k->type == CT_SLICE)
		return duration_format((int64_t)v, buf, len);
	return conffmt_float(v, buf, len);
}

const char *
conffmt_range(const struct conf_key *k, char *buf, size_t len)
{
	char	 lo[32], hi[32];
	size_t	 i, n = 0;

	if (k->type == CT_ENUM) {
		buf[0] = '\0';
		for (i = 0; k->names[i] != NULL && n < len; i++)
			n += (size_t)snprintf(buf + n, len - n, "%s%s",
			    i > 0 ? "|" : "", k->names[i]);
		return buf;
	}
	if (k->min == 0 && k->max == 0) {
		snprintf(buf, len, "-");
		return buf;
	}
	snprintf(buf, len, "%c%s, %s]", k->flags & CF_MIN_OPEN ? '(' : '[',
	    conffmt_bound(k, k->min, lo, sizeof(lo)),
	    conffmt_bound(k, k->max, hi, sizeof(hi)));
	return buf;
}

const char *
conffmt_names(const struct conf_key *k, char *buf, size_t len)
{
	size_t	 i, n = 0;

	buf[0] = '\0';
	for (i = 0; k->names[i] != NULL && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s",
		    i == 0 ? "" : k->names[i + 1] == NULL ? " or " : ", ",
		    k->names[i]);
	return buf;
}

const char *
conffmt_pct(int32_t pm, char *buf, size_t len)
{
	char	 frac[8] = "";
	int	 n;

	if (pm % 1000 != 0) {
		n = snprintf(frac, sizeof(frac), ".%03d", (int)(pm % 1000));
		while (n > 1 && frac[n - 1] == '0')
			frac[--n] = '\0';
	}
	snprintf(buf, len, "%d%s%%", (int)(pm / 1000), frac);
	return buf;
}
