/*
 * pvmcmd.h - the console's PVM commands: conf, add, delete, tasks, spawn,
 * halt.  Each connects first (starting dts if no pvmd runs; halt never
 * starts one), refreshes the cached host table, and reports every PVM
 * error as one line on p->out.  The command table (cmds.c) calls them
 * with the console's struct cpvm, and after halt forgets the schedule.
 */
#ifndef DTS_CONSOLE_PVMCMD_H
#define DTS_CONSOLE_PVMCMD_H

struct cpvm;

int cpvm_cmd_conf(struct cpvm *p, int argc, char **argv);
int cpvm_cmd_add(struct cpvm *p, int argc, char **argv);
int cpvm_cmd_delete(struct cpvm *p, int argc, char **argv);
int cpvm_cmd_tasks(struct cpvm *p, int argc, char **argv);
int cpvm_cmd_spawn(struct cpvm *p, int argc, char **argv);
int cpvm_cmd_halt(struct cpvm *p, int argc, char **argv);

#endif /* DTS_CONSOLE_PVMCMD_H */
