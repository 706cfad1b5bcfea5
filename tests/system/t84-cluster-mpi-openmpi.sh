#!/bin/bash
# t84-cluster-mpi-openmpi.sh - Open MPI jobs on a 3-host DTS cluster: mpirun
# in h0's gang (dts-run -- mpirun.openmpi), orted in the gang of h1 and h2
# (plm_rsh_agent dts-ssh), driven by dts-console -n from the job's host
# file.  What is checked: tests/system/mpi.sh.
MPI_KIND=ompi
. "$(dirname "$0")/mpi.sh"
