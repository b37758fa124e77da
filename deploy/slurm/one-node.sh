#!/bin/bash
# A throw-away one-node Slurm on this machine, to run the recipes of deploy/slurm/ on a real
# scheduler: munged with its own key and socket, slurmctld and slurmd as root
# (ProctrackType=proctrack/linuxproc, TaskPlugin=task/none: no cgroups needed) talking over
# 127.0.0.1 (no name resolution needed), every state and log file under WORKDIR.
#
#   deploy/slurm/one-node.sh up WORKDIR      start it; prints `export SLURM_CONF=…`
#   deploy/slurm/one-node.sh down WORKDIR    stop it (idempotent; WORKDIR is left for its logs)
#
# Run from the repository's folder, as root, with Debian's slurm-wlm and munge installed.
# Ports: SLURMCTLD_PORT and SLURMD_PORT (default 16817 and 16818; give free ones).
# Exit 77 with the reason on stderr when Slurm cannot be started here (not root, a daemon
# missing, the node never became idle): callers treat that as "skipped".
set -euo pipefail

cmd=${1:-}
dir=${2:-}
if [ -z "$cmd" ] || [ -z "$dir" ]; then
    echo "usage: one-node.sh up|down WORKDIR" >&2
    exit 2
fi
skip() {
    echo "one-node Slurm: $*" >&2
    exit 77
}

# Stops the daemons of these pid files: all are asked at once (each takes a second or two
# to save its state), then waited for, then killed after 5 s.
stop_pidfiles() {
    local file pid pids=()
    for file in "$@"; do
        [ -f "$file" ] || continue
        pid=$(cat "$file" 2>/dev/null || true)
        if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
            kill "$pid" 2>/dev/null || true
            pids+=("$pid")
        fi
        rm -f "$file"
    done
    for _ in $(seq 50); do
        local alive=0
        for pid in "${pids[@]}"; do
            kill -0 "$pid" 2>/dev/null && alive=1
        done
        [ "$alive" -eq 0 ] && return 0
        sleep 0.1
    done
    for pid in "${pids[@]}"; do
        kill -9 "$pid" 2>/dev/null || true
    done
}

if [ "$cmd" = down ]; then
    stop_pidfiles "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munged.pid"
    exit 0
fi
[ "$cmd" = up ] || {
    echo "usage: one-node.sh up|down WORKDIR" >&2
    exit 2
}

[ "$(id -u)" -eq 0 ] || skip "slurmd runs as root here, and this is uid $(id -u)"
for tool in munged slurmctld slurmd sbatch squeue scontrol; do
    command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] ||
        skip "$tool is not installed (Debian: apt-get install slurm-wlm munge)"
done
export PATH="$PATH:/usr/sbin"

mkdir -p "$dir"/{state,spool,munge}
dir=$(cd "$dir" && pwd)
host=$(hostname -s 2>/dev/null || cut -d. -f1 /proc/sys/kernel/hostname)
cpus=$(nproc)
mem_mb=$(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo)
ctld_port=${SLURMCTLD_PORT:-16817}
slurmd_port=${SLURMD_PORT:-16818}

# munge: a key of our own (munged insists on 0400 and an owner that runs it) and a socket
# in WORKDIR, so a munged already running on the machine is neither used nor disturbed.
chmod 0700 "$dir/munge"
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 0400 "$dir/munge/munge.key"
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.sock" \
    --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" \
    --seed-file="$dir/munge/munge.seed" ||
    skip "munged did not start (see $dir/munged.log)"

cat >"$dir/slurm.conf" <<EOF
ClusterName=queens-test
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SwitchType=switch/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=queens Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$dir/slurm.conf"

slurmctld -f "$SLURM_CONF" || skip "slurmctld did not start (see $dir/slurmctld.log)"
slurmd -f "$SLURM_CONF" || skip "slurmd did not start (see $dir/slurmd.log)"

# Up when the node is idle: sinfo reports it once slurmd has registered.
for _ in $(seq 100); do
    state=$(sinfo -h -N -o '%t' 2>/dev/null | head -n 1 || true)
    case $state in
    idle*) break ;;
    esac
    sleep 0.2
done
case ${state:-} in
idle*) ;;
*) skip "the node did not become idle within 20 s (state '${state:-none}'; see $dir/slurmctld.log and $dir/slurmd.log)" ;;
esac
echo "export SLURM_CONF=$SLURM_CONF"
