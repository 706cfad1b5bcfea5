/*
 * nopvm.c - dts-master has no PVM: the PVM commands of the command table
 * (conf, add, delete, tasks, spawn, halt) fail in one line.  They are the
 * users' own virtual machines', run in dts-console.
 */
#include "pvm.h"
#include "pvmcmd.h"

static int
nopvm(struct cpvm *p, char **argv)
{
	return out_err(p->out, "%s: a PVM command; dts-master has no PVM (run "
	    "it in dts-console)", argv[0]);
}

int cpvm_cmd_conf(struct cpvm *p, int argc, char **argv)
{ (void)argc; return nopvm(p, argv); }
int cpvm_cmd_add(struct cpvm *p, int argc, char **argv)
{ (void)argc; return nopvm(p, argv); }
int cpvm_cmd_delete(struct cpvm *p, int argc, char **argv)
{ (void)argc; return nopvm(p, argv); }
int cpvm_cmd_tasks(struct cpvm *p, int argc, char **argv)
{ (void)argc; return nopvm(p, argv); }
int cpvm_cmd_spawn(struct cpvm *p, int argc, char **argv)
{ (void)argc; return nopvm(p, argv); }
int cpvm_cmd_halt(struct cpvm *p, int argc, char **argv)
{ (void)argc; return nopvm(p, argv); }
