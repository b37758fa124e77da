#!/bin/sh
# One round of the completion threshold on this machine's cores, in shards that resume:
# every shard walked (P at a time, each with its checkpoint), the shards merged, the merged
# certificate checked in S parts (P at a time), and accepted from the parts' records. The
# same steps deploy/slurm/threshold.sbatch runs as Slurm arrays.
#
#   deploy/threshold-local.sh N K S P OUTDIR [THRESHOLD ARGS…]
#   e.g. deploy/threshold-local.sh 12 3 3 2 out/t12     (n = 12, k = 3, 3 shards, 2 at a time)
#
# Stopped (Ctrl-C, SIGTERM, a reboot) and started again with the same arguments, the shards
# already finished are kept (their certificate folder is there) and the others resume from
# OUTDIR/checkpoint-I-of-S. QUEENS names the binary (default: queens on the PATH); NICE (default
# 19) the priority the shards run at. Extra arguments go to every shard (e.g. --seed-cover
# FILE, --progress-every 60). Exit 0 when the merged certificate is accepted; 1 when a shard
# found a placement with no completion (its folder is the certificate of "no").
set -eu

[ $# -ge 5 ] || { echo "usage: threshold-local.sh N K SHARDS PROCS OUTDIR [ARGS…]" >&2; exit 2; }
n=$1
k=$2
shards=$3
procs=$4
outdir=$5
shift 5
QUEENS=${QUEENS:-queens}
NICE=${NICE:-19}
mkdir -p "$outdir"

export OUT="$outdir" SHARDS="$shards" N="$n" K="$k" NICE QUEENS
indices() {
    i=0
    while [ "$i" -lt "$shards" ]; do
        echo "$i"
        i=$((i + 1))
    done
}

# The walk: a shard whose certificate is written is finished; the others run or resume.
# shellcheck disable=SC2016 # the inner script expands its own variables
indices | xargs -P "$procs" -I '{}' sh -c '
    i=$1; shift
    dir="$OUT/shard-$i-of-$SHARDS"
    [ -f "$dir/shard.json" ] && exit 0
    nice -n "$NICE" "$QUEENS" threshold --n "$N" --k "$K" --shard "$i/$SHARDS" \
        --checkpoint "$OUT/checkpoint-$i-of-$SHARDS" --certificate "$dir" "$@" \
        >"$OUT/walk-$i-of-$SHARDS.log"
' sh '{}' "$@" || {
    for d in "$outdir"/shard-*-of-"$shards"; do
        if [ -f "$d/counterexample.json" ]; then
            echo "threshold-local.sh: $d holds a placement with no completion" >&2
            exit 1
        fi
    done
    echo "threshold-local.sh: a shard failed or was stopped (see $outdir/walk-*.log); run again to resume" >&2
    exit 2
}

"$QUEENS" threshold merge "$outdir"/shard-*-of-"$shards" -o "$outdir/merged" --binary-cover
indices | xargs -P "$procs" -I '{}' \
    nice -n "$NICE" "$QUEENS" threshold check "$outdir/merged" --shard "{}/$shards" >/dev/null
exec "$QUEENS" threshold check "$outdir/merged" --parts "$shards"
