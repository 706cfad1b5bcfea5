/*
 * balance.h - BALANCED mode (thesis 2.1.2): the Relative Load Average
 *
 *   RLA = mean over the live nodes j of Q_j / W_j     (or the max)
 *
 * with W_j the power weight of node j: configured ("set weight HOST W"),
 * else its PVM host speed divided by the fastest host's, else 1.  The
 * console applies Table 2.1 to the RLA, with hysteresis: a new LS is
 * chosen only when |RLA - RLA_prev| > hysteresis, and then RLA_prev = RLA.
 */
#ifndef DTS_MASTER_BALANCE_H
#define DTS_MASTER_BALANCE_H

#include <stdint.h>

#include "conf.h"
#include "nodes.h"
#include "proto.h"

#define WEIGHTS_MAX 64
#define WEIGHT_MAX  1000.0
/* Weights are kept to the millionth, as the standby's copy carries them
 * (PROTO_WEIGHT): the smallest is this. */
#define WEIGHT_MIN  (1.0 / PROTO_WEIGHT_UNIT)

struct weights {
	int	 n;
	struct {
		char	 host[HOST_NAME_MAX_];	/* name or address */
		double	 w;
	} v[WEIGHTS_MAX];
};

struct bal {
	int	 have_prev;
	double	 rla_prev;	/* RLA when LS was last chosen */
	int	 ls_pct;	/* LS % chosen, -1 if none yet */
};

/* The RLA over the live nodes. */
struct rla {
	int	 nlive;		/* live nodes with a load index */
	double	 mean, max;
};

/* Set (w > 0) or clear (w == 0) the weight of host; -1 if full. */
int bal_weight_set(struct weights *ws, const char *host, double w);

/*
 * w in millionths, and w rounded to the millionth: what a standby makes
 * of bal_weight_micro(w) ((double)micro / PROTO_WEIGHT_UNIT), the very
 * same double.
 */
uint32_t bal_weight_micro(double w);
double bal_weight_round(double w);

/* The configured weight for node n, or 0 if none. */
double bal_weight_configured(const struct weights *ws, const struct node *n);

/* W_j of node n; *src says where it came from: "set", "pvm" or "1". */
double bal_weight(const struct weights *ws, const struct vm_hosts *hosts,
    const struct node *n, const char **src);

/* Compute the RLA over the nodes live at now. */
void bal_rla(const struct nodes *ns, const struct weights *ws,
    const struct vm_hosts *hosts, int64_t now, int64_t timeout,
    struct rla *r);

void bal_reset(struct bal *b);

/*
 * Feed a new RLA; returns 1 if the LS percentage changed (b->ls_pct),
 * 0 if not (inside the hysteresis, or the same band).
 */
int bal_step(struct bal *b, double rla, const struct load_table *t,
    double hysteresis);

#endif /* DTS_MASTER_BALANCE_H */
