/*
 * console_stubs.c - stand-ins for the console's PVM commands, so the unit
 * tests link the command table without libpvm3.  Each records its call.
 */
#include <stdlib.h>

#include "pvm.h"
#include "pvmcmd.h"

int stub_pvm_calls;

/* Handlers get argv[argc] == NULL (spawn passes it to pvm_spawn). */
static int
stub(struct cpvm *p, int argc, char **argv)
{
	const char	*name = argv[0];

	if (argv[argc] != NULL)
		abort();
	stub_pvm_calls++;
	return out_err(p->out, "%s: PVM is not linked into the unit tests",
	    name);
}

#define STUB(fn) \
int fn(struct cpvm *p, int argc, char **argv) { return stub(p, argc, argv); }

STUB(cpvm_cmd_conf)
STUB(cpvm_cmd_add)
STUB(cpvm_cmd_delete)
STUB(cpvm_cmd_tasks)
STUB(cpvm_cmd_spawn)
STUB(cpvm_cmd_halt)
