/*
 * pvmerr.c - PVM's error codes, one table.  See pvmerr.h.
 */
#include <stddef.h>
#include <stdio.h>

#include <pvm3.h>

#include "pvmerr.h"

#define E(code, msg)	{ code, #code, msg }

static const struct {
	int		 code;
	const char	*name;
	const char	*msg;
} errs[] = {
	E(PvmBadParam, "bad parameter"),
	E(PvmMismatch, "parameter mismatch"),
	E(PvmOverflow, "value too large"),
	E(PvmNoData, "end of buffer"),
	E(PvmNoHost, "no such host"),
	E(PvmNoFile, "no such file"),
	E(PvmDenied, "permission denied"),
	E(PvmNoMem, "out of memory"),
	E(PvmBadMsg, "cannot decode message"),
	E(PvmSysErr, "cannot contact the local pvmd"),
	E(PvmNoBuf, "no current buffer"),
	E(PvmNoSuchBuf, "no such buffer"),
	E(PvmNullGroup, "null group name"),
	E(PvmDupGroup, "already in the group"),
	E(PvmNoGroup, "no such group"),
	E(PvmNotInGroup, "not in the group"),
	E(PvmNoInst, "no such instance in the group"),
	E(PvmHostFail, "host failed"),
	E(PvmNoParent, "no parent task"),
	E(PvmNotImpl, "not implemented"),
	E(PvmDSysErr, "pvmd system error"),
	E(PvmBadVersion, "PVM version mismatch"),
	E(PvmOutOfRes, "out of resources"),
	E(PvmDupHost, "duplicate host (already in the VM)"),
	E(PvmCantStart, "cannot start pvmd there"),
	E(PvmAlready, "already in progress"),
	E(PvmNoTask, "no such task"),
	E(PvmNotFound, "not found"),
	E(PvmExists, "already exists"),
	E(PvmHostrNMstr, "hoster run on a non-master host"),
	E(PvmParentNotSet, "parent task not set"),
	E(PvmIPLoopback, "the master host's address is loopback (127.x: "
	    "give the master a resolvable name or address)"),
};

/* The entry of code, or -1. */
static int
find(int code)
{
	size_t	 i;

	for (i = 0; i < sizeof(errs) / sizeof(errs[0]); i++)
		if (errs[i].code == code)
			return (int)i;
	return -1;
}

static const char *
unknown(int code)
{
	static char	 buf[32];

	snprintf(buf, sizeof(buf), "PVM error %d", code);
	return buf;
}

const char *
pvmerr_name(int code)
{
	int	 i = find(code);

	return i == -1 ? unknown(code) : errs[i].name;
}

const char *
pvmerr_msg(int code)
{
	int	 i = find(code);

	return i == -1 ? unknown(code) : errs[i].msg;
}
