#!/bin/bash
# t86-cluster-mpi-mpich.sh - MPICH jobs on a 3-host DTS cluster: mpiexec
# (hydra) in h0's gang (dts-run -- mpiexec.mpich), hydra_pmi_proxy in the
# gang of h1 and h2 (-launcher-exec dts-ssh), driven by dts-console -n
# from the job's machine file.  What is checked: tests/system/mpi.sh.
MPI_KIND=mpich
. "$(dirname "$0")/mpi.sh"
