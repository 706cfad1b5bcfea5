#!/bin/bash
# t123-slurm-mpi.sh - MPI jobs under Slurm land in the Slurm job's DTS gang
# on every node (the SPANK plugin, man/dts_spank.8), on a real Slurm
# cluster of two hosts h0 h1 with a dts each (tests/system/slurm.sh):
#  0. `srun --mpi=list` offers pmi2 and pmix (Debian 12's slurm-wlm).
#  1. MPICH (4.0.2, libmpich12): `srun -N2 -n2 --dts --mpi=pmi2` of
#     tests/bench/mpiloop.c, busy-polling: 2 ranks of 1 job, rank k on
#     hk, each in the gang of job USER:sJOBID on its host (the rank's own
#     /proc/self/cgroup), and the job completes with every check of
#     mpiloop passed.
#  2. Open MPI (4.1.4) with `srun --mpi=pmi2` cannot work on Debian 12:
#     its only PMI clients are PMIx ones (pmix: ext3x, isolated, flux;
#     no s1/s2, which need Slurm's libpmi/libpmi2 at Open MPI's build),
#     so each rank says Open MPI was not built with Slurm's PMI support
#     and the step fails.  The test asserts exactly that (ompi_info's
#     list and the error), so that a package that gains s2 turns it into
#     a failure to look at.  The same ranks under `srun --mpi=pmix`
#     (Slurm's mpi_pmix_v4 beside libpmix2 4.2.2): 2 ranks, each in the
#     job's gang on its host, complete.
#  3. Open MPI's `mpirun` inside an allocation (sbatch -N2 --dts): mpirun
#     in the batch script on h0 starts orted on h1 through srun (plm
#     slurm), which the plugin puts in the job's gang there too; while the
#     job runs, mpirun is a member of the gang on h0 and orted on h1, and
#     the 2 ranks say they are in it; the job completes, and afterwards
#     no cgroup and no state file of it is left on either host.
# <= 120 s here.  The harness's traps stop every daemon by PID and leave
# no namespace, user, cgroup or file of Slurm or munge behind.
set -u
. "$(dirname "$0")/lib.sh"
. "$SRC/tests/system/cluster.sh"
. "$SRC/tests/system/slurm.sh"
t_setup t123-slurm-mpi
s_need
c_mpi_need mpich
c_mpi_need ompi
command -v ompi_info > /dev/null || t_fail "needs ompi_info: quickstart installs it (openmpi-bin)"

c_user_a
C_CONF_EXTRA='mode = "static"; ip = "100ms"; ps = "80%";'
c_up 2 --no-pvm
s_up

WD=$T_DIR/h0/home
c_mpi_setup mpich
P_MPICH=$WD/$(basename "$C_MPI_PROG")
c_mpi_setup ompi
P_OMPI=$WD/$(basename "$C_MPI_PROG")
cp "$T_DIR/mpi/$(basename "$P_MPICH")" "$T_DIR/mpi/$(basename "$P_OMPI")" "$WD/" &&
    chmod 755 "$P_MPICH" "$P_OMPI" || t_fail "cannot copy the MPI programs to $WD"
cd "$WD" || t_fail "cd $WD"
# Open MPI's and UCX's own traffic on the hosts' eth0
OMPI_ENV=(OMPI_MCA_btl_tcp_if_include=eth0 OMPI_MCA_oob_tcp_if_include=eth0
    OMPI_MCA_hwloc_base_binding_policy=none)
# the job id and the program: rank 0 says which Slurm job it is in
JOBID_SH='[ "${SLURM_PROCID:-0}" != 0 ] || echo "slurm job $SLURM_JOB_ID"; exec "$0" "$@"'

# in_gang LOG N: LOG's "slurm job J" and N rank lines of mpiloop -r, rank k
# on hk in the gang cgroup of job A:sJ there; J set.  WHY says what was wrong.
in_gang() {
	local log=$1 n=$2 r of h pid cg want got=0
	WHY=
	J=$(sed -n 's/^slurm job \([0-9]*\)$/\1/p' "$log" | head -n 1)
	[ -n "$J" ] || { WHY="no Slurm job id"; return 1; }
	while read -r _ r _ of _ h _ pid _ cg; do
		want=$(c_job_dir "$r" "$A" "s$J") || { WHY="no host h$r"; return 1; }
		want=${want#"$_C_CGM"}
		[ "$of" = "$n" ] && [ "$h" = "h$r" ] && [ "$cg" = "$want" ] || {
			WHY="rank $r (pid $pid) on $h in $cg, want h$r in $want"
			return 1
		}
		got=$((got + 1))
	done < <(grep '^rank [0-9]* of ' "$log")
	[ "$got" = "$n" ] || WHY="$got rank lines, want $n"
	[ -z "$WHY" ]
}
complete() { grep -q "^mpiloop ranks=$2 iters=[1-9][0-9]* .* complete=1$" "$1"; }
state_files() {
	ls -d "$T_RUN/h$1.state.$A@$2" "$T_RUN/h$1.state.$A@$2".* 2> /dev/null | paste -sd' '
}
job_cgs() {
	local d
	d=$(c_job_dir "$1" "$A" "$2")
	for d in "$d" $(_t_cg_v1 "$d"); do [ ! -d "$d" ] || echo "$d"; done | paste -sd' '
}
gone() { [ -z "$(job_cgs "$1" "$2")" ] && [ -z "$(state_files "$1" "$2")" ]; }

# ---- 0. Slurm's MPI plugins ------------------------------------------------------
s_run h0 srun --mpi=list > "$T_LOG/mpi-list.log" 2>&1 || t_fail "srun --mpi=list: $(cat "$T_LOG/mpi-list.log")"
for m in pmi2 pmix; do
	grep -qw "$m" "$T_LOG/mpi-list.log" || t_fail "srun --mpi=list has no $m: $(cat "$T_LOG/mpi-list.log")"
done
t_log "srun --mpi=list: $(grep -v '^MPI plugin' "$T_LOG/mpi-list.log" | tr -s ' \t\n' ' ')"

# ---- 1. MPICH, srun --mpi=pmi2 -----------------------------------------------------
s_run h0 "${UA[@]}" timeout 60 srun -N2 -n2 --dts --mpi=pmi2 sh -c "$JOBID_SH" \
    "$P_MPICH" -r -i 0 -t 3 > "$T_LOG/mpich.log" 2>&1 ||
    t_fail "MPICH, srun --mpi=pmi2: status $?: $(tail -n 5 "$T_LOG/mpich.log")"
in_gang "$T_LOG/mpich.log" 2 || t_fail "MPICH, srun --mpi=pmi2: $WHY: $(paste -sd'|' "$T_LOG/mpich.log")"
complete "$T_LOG/mpich.log" 2 || t_fail "MPICH, srun --mpi=pmi2: not complete: $(tail -n 3 "$T_LOG/mpich.log")"
t_log "MPICH, srun --mpi=pmi2, job $J: 2 ranks in job.$A@s$J on h0 and h1; $(grep '^mpiloop' "$T_LOG/mpich.log")"

# ---- 2. Open MPI: srun --mpi=pmi2 cannot, srun --mpi=pmix does ----------------------
pmix=$(ompi_info --parsable 2> /dev/null | sed -n 's/^mca:pmix:\([^:]*\):version:.*/\1/p' | sort -u | paste -sd' ')
case " $pmix " in
*" s1 "* | *" s2 "*) t_fail "Open MPI has a Slurm PMI client now (pmix components: $pmix): srun --mpi=pmi2 should be tried" ;;
esac
if s_run h0 "${UA[@]}" env "${OMPI_ENV[@]}" timeout 60 srun -N2 -n2 --dts --mpi=pmi2 \
    "$P_OMPI" -r -i 0 -t 2 > "$T_LOG/ompi-pmi2.log" 2>&1; then
	t_fail "Open MPI, srun --mpi=pmi2 ran, without a PMI2 client (pmix: $pmix): $(paste -sd'|' "$T_LOG/ompi-pmi2.log")"
fi
grep -q "OMPI was not built with SLURM's PMI support" "$T_LOG/ompi-pmi2.log" ||
    t_fail "Open MPI, srun --mpi=pmi2: not Open MPI's own reason: $(paste -sd'|' "$T_LOG/ompi-pmi2.log")"
t_log "Open MPI, srun --mpi=pmi2: cannot (its PMI clients: $pmix; no s1/s2): $(grep -B1 -A1 -m1 "OMPI was not built" "$T_LOG/ompi-pmi2.log" | sed 's/^ *//' | paste -sd' ')"
s_run h0 "${UA[@]}" env "${OMPI_ENV[@]}" timeout 60 srun -N2 -n2 --dts --mpi=pmix sh -c "$JOBID_SH" \
    "$P_OMPI" -r -i 0 -t 3 > "$T_LOG/ompi-pmix.log" 2>&1 ||
    t_fail "Open MPI, srun --mpi=pmix: status $?: $(tail -n 5 "$T_LOG/ompi-pmix.log")"
in_gang "$T_LOG/ompi-pmix.log" 2 || t_fail "Open MPI, srun --mpi=pmix: $WHY: $(paste -sd'|' "$T_LOG/ompi-pmix.log")"
complete "$T_LOG/ompi-pmix.log" 2 || t_fail "Open MPI, srun --mpi=pmix: not complete: $(tail -n 3 "$T_LOG/ompi-pmix.log")"
t_log "Open MPI, srun --mpi=pmix, job $J: 2 ranks in job.$A@s$J on h0 and h1; $(grep '^mpiloop' "$T_LOG/ompi-pmix.log")"

# ---- 3. Open MPI's mpirun inside sbatch --------------------------------------------
stop=$WD/mpirun.stop
rm -f "$stop"
s_run h0 "${UA[@]}" env "${OMPI_ENV[@]}" sbatch -N2 --dts -o "$WD/mpirun.%j.out" --wrap \
    "echo \"slurm job \$SLURM_JOB_ID\"; exec mpirun.openmpi -np 2 --map-by node $P_OMPI -r -i 0 -t 60 -s 200 -f $stop" \
    > "$T_LOG/sbatch.log" 2>&1 || t_fail "sbatch mpirun: $(cat "$T_LOG/sbatch.log")"
J=$(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' "$T_LOG/sbatch.log")
[ -n "$J" ] || t_fail "sbatch: no job id: $(cat "$T_LOG/sbatch.log")"
OUT=$WD/mpirun.$J.out
t_wait_for 40 eval '[ "$(grep -c "^rank [0-9]* of " "$OUT" 2> /dev/null)" = 2 ]' ||
    t_fail "mpirun in sbatch: no 2 rank lines: $(paste -sd'|' "$OUT" 2> /dev/null)"
members_are() { c_job_pids "$1" "$A" "s$J" "$2" | grep -q .; }
t_wait_for 5 members_are 0 mpirun.openmpi ||
    t_fail "mpirun is not in job s$J's gang on h0: $(c_job_pids 0 "$A" "s$J" | paste -sd' ')"
t_wait_for 5 members_are 1 orted ||
    t_fail "no orted in job s$J's gang on h1: $(c_job_pids 1 "$A" "s$J" | paste -sd' ')"
in_gang "$OUT" 2 || t_fail "mpirun in sbatch: $WHY: $(paste -sd'|' "$OUT")"
m0=$(for p in $(c_job_pids 0 "$A" "s$J"); do _c_comm "$p"; done | sort | uniq -c | awk '{print $2 "x" $1}' | paste -sd' ')
m1=$(for p in $(c_job_pids 1 "$A" "s$J"); do _c_comm "$p"; done | sort | uniq -c | awk '{print $2 "x" $1}' | paste -sd' ')
: > "$stop"
t_wait_for 30 complete "$OUT" 2 || t_fail "mpirun in sbatch: not complete: $(tail -n 3 "$OUT")"
for k in 0 1; do
	t_wait_for 5 gone "$k" "s$J" ||
	    t_fail "h$k: job s$J left after its end: cgroups $(job_cgs "$k" "s$J"), state files $(state_files "$k" "s$J")"
done
t_log "mpirun in sbatch, job $J: gang h0 [$m0], h1 [$m1]; ranks in job.$A@s$J; $(grep '^mpiloop' "$OUT"); nothing left after"
t_pass
