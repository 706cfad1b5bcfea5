/*
 * balance.c - RLA, power weights and Table 2.1 with hysteresis.  See
 * balance.h.
 */
#include <arpa/inet.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "balance.h"

int
bal_weight_set(struct weights *ws, const char *host, double w)
{
	int	 i;

	for (i = 0; i < ws->n; i++)
		if (strcmp(ws->v[i].host, host) == 0)
			break;
	if (w <= 0) {
		if (i < ws->n) {
			memmove(&ws->v[i], &ws->v[i + 1],
			    (size_t)(ws->n - i - 1) * sizeof(ws->v[0]));
			ws->n--;
		}
		return 0;
	}
	if (i == ws->n) {
		if (ws->n == WEIGHTS_MAX)
			return -1;
		snprintf(ws->v[i].host, sizeof(ws->v[i].host), "%s", host);
		ws->n++;
	}
	ws->v[i].w = w;
	return 0;
}

uint32_t
bal_weight_micro(double w)
{
	return (uint32_t)llround(w * PROTO_WEIGHT_UNIT);
}

double
bal_weight_round(double w)
{
	return (double)bal_weight_micro(w) / PROTO_WEIGHT_UNIT;
}

double
bal_weight_configured(const struct weights *ws, const struct node *n)
{
	char	 a[INET_ADDRSTRLEN];
	int	 i;

	if (ws->n == 0)		/* no weight set: no address to format */
		return 0;
	inet_ntop(AF_INET, &n->addr, a, sizeof(a));
	for (i = 0; i < ws->n; i++)
		if (strcmp(ws->v[i].host, a) == 0 ||
		    nodes_name_match(ws->v[i].host, n->name))
			return ws->v[i].w;
	return 0;
}

double
bal_weight(const struct weights *ws, const struct vm_hosts *hosts,
    const struct node *n, const char **src)
{
	double	 w;
	int	 i, fastest = 0;
	const struct vm_host *mine = NULL;

	if ((w = bal_weight_configured(ws, n)) > 0) {
		*src = "set";
		return w;
	}
	for (i = 0; i < hosts->n; i++) {
		if (hosts->v[i].speed > fastest)
			fastest = hosts->v[i].speed;
		if (mine == NULL && nodes_host_match(n, &hosts->v[i]))
			mine = &hosts->v[i];
	}
	if (mine != NULL && mine->speed > 0 && fastest > 0) {
		*src = "pvm";
		return (double)mine->speed / fastest;
	}
	*src = "1";
	return 1.0;
}

void
bal_rla(const struct nodes *ns, const struct weights *ws,
    const struct vm_hosts *hosts, int64_t now, int64_t timeout,
    struct rla *r)
{
	const char	*src;
	double		 x, sum = 0;
	int		 i;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < ns->n; i++) {
		const struct node *n = &ns->v[i];

		if (!n->have_q || !nodes_live(n, now, timeout))
			continue;
		x = n->q / bal_weight(ws, hosts, n, &src);
		sum += x;
		if (r->nlive == 0 || x > r->max)
			r->max = x;
		r->nlive++;
	}
	if (r->nlive > 0)
		r->mean = sum / r->nlive;
}

void
bal_reset(struct bal *b)
{
	b->have_prev = 0;
	b->rla_prev = 0;
	b->ls_pct = -1;
}

int
bal_step(struct bal *b, double rla, const struct load_table *t,
    double hysteresis)
{
	int	 ls;

	if (isnan(rla))
		return 0;
	if (b->have_prev && fabs(rla - b->rla_prev) <= hysteresis)
		return 0;
	b->have_prev = 1;
	b->rla_prev = rla;
	ls = loadtab_ls_pct(t, rla);
	if (ls == b->ls_pct)
		return 0;
	b->ls_pct = ls;
	return 1;
}
