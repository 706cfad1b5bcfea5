/*
 * proto.c - the facts of proto.h that are code: each type's payload
 * length and tag, and the names of its enums.  Encoding, decoding and
 * the tags are wire.c's.
 */
#include <stddef.h>

#include "names.h"
#include "proto.h"

/* ---- lengths ------------------------------------------------------- */

static const int payload_len[PROTO_TYPE_LAST + 1] = {
	[PROTO_SCHEDULE]   = PROTO_SCHEDULE_LEN,
	[PROTO_STATUS_REQ] = PROTO_STATUS_REQ_LEN,
	[PROTO_STATUS]     = PROTO_STATUS_LEN,
	[PROTO_LOAD]       = PROTO_LOAD_LEN,
	[PROTO_TRACE_REQ]  = PROTO_TRACE_REQ_LEN,
	[PROTO_TRACE]      = PROTO_TRACE_LEN,
	[PROTO_METRICS_REQ] = PROTO_METRICS_REQ_LEN,
	[PROTO_METRICS]    = PROTO_METRICS_LEN,
	[PROTO_JOB_REQ]    = PROTO_JOB_REQ_LEN,
	[PROTO_JOB]        = PROTO_JOB_LEN_WIRE,
	[PROTO_WEIGHT]     = PROTO_WEIGHT_LEN,
	[PROTO_JOB_MEM_REQ] = PROTO_JOB_MEM_REQ_LEN,
	[PROTO_JOB_MEM]    = PROTO_JOB_MEM_LEN,
};

int
proto_payload_len(unsigned type)
{
	if (type == 0 || type > PROTO_TYPE_LAST)
		return -1;
	return payload_len[type];
}

int
proto_is_command(unsigned type)
{
	return ((PROTO_ACCEPT_NODE | PROTO_ACCEPT_PEER) &
	    PROTO_TYPE_BIT(type)) != 0;
}

size_t
proto_tag_len(unsigned type)
{
	return proto_is_command(type) ? PROTO_SIG_LEN : PROTO_MAC_LEN;
}

/* ---- names --------------------------------------------------------- */

const char *const proto_mode_names[MODE_COUNT + 1] = {
	[MODE_OFF] = "off", [MODE_STATIC] = "static",
	[MODE_BALANCED] = "balanced", [MODE_DISTRIBUTED] = "distributed",
	[MODE_HPDT] = "hpdt", NULL
};
const char *const proto_sync_names[SYNC_COUNT + 1] = {
	[SYNC_ARRIVAL] = "arrival", [SYNC_CLOCK] = "clock", NULL
};
const char *const proto_phase_names[PHASE_COUNT + 1] = {
	[PHASE_NONE] = "none", [PHASE_PS] = "PS", [PHASE_LS] = "LS", NULL
};
const char *const proto_reject_names[REJ_COUNT + 1] = {
	[REJ_SHORT] = "short", [REJ_LONG] = "long", [REJ_MAGIC] = "magic",
	[REJ_TYPE] = "type", [REJ_LENGTH] = "length", [REJ_RATE] = "rate",
	[REJ_MAC] = "mac", [REJ_REPLAY] = "replay", [REJ_RANGE] = "range",
	[REJ_MASTER] = "master", NULL
};

const char *
proto_mode_name(unsigned m)
{
	return names_get(proto_mode_names, m);
}

const char *
proto_sync_name(unsigned s)
{
	return names_get(proto_sync_names, s);
}

const char *
proto_phase_name(unsigned p)
{
	return names_get(proto_phase_names, p);
}

const char *
proto_edge_name(unsigned p)
{
	return p == TRACE_SLOT ? "slot" : proto_phase_name(p);
}

const char *
proto_reject_name(unsigned r)
{
	return names_get(proto_reject_names, r);
}

int
proto_mode_parse(const char *s)
{
	return names_find(proto_mode_names, s);
}

int
proto_sync_parse(const char *s)
{
	return names_find(proto_sync_names, s);
}

void
proto_metrics_of_status(struct proto_metrics *p, const struct proto_status *st)
{
	p->slices = st->slices;
	p->overruns = st->overruns;
	p->mode = st->mode;
	p->phase = st->phase;
	p->flags = st->flags;
	p->ps_us = st->ps_us;
	p->ip_us = st->ip_us;
	p->load_milli = st->load_milli;
	p->members = st->members;
}
