#!/bin/sh
# Runs all N shards of a sharded queens run on this machine, P at a time, then merges them:
# the same shard.sh a Slurm array or a Kubernetes Indexed Job runs, with local processes
# standing in for the scheduler.
#
#   deploy/local.sh N P count OUTDIR [COUNT ARGS…]   e.g. deploy/local.sh 64 2 count out --n 19
#   deploy/local.sh N P batch OUTDIR [BATCH ARGS…]   e.g. deploy/local.sh 8 2 batch out c.jsonl
#   deploy/local.sh N P threshold OUTDIR --n N --k K e.g. deploy/local.sh 8 2 threshold out --n 19 --k 4
#
# QUEENS names the binary (default: queens on the PATH). A merged batch is written to
# OUTDIR/merged.jsonl, a merged threshold certificate to OUTDIR/merged; the merge's summary
# (or the merged count) goes to stdout.
set -eu

[ $# -ge 4 ] || { echo "usage: local.sh N P count|batch|threshold OUTDIR [ARGS…]" >&2; exit 2; }
shards=$1
procs=$2
kind=$3
outdir=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
QUEENS=${QUEENS:-queens}
export QUEENS

mkdir -p "$outdir"
# xargs runs at most P shards at once and fails if any shard fails.
i=0
while [ "$i" -lt "$shards" ]; do
    echo "$i"
    i=$((i + 1))
done | xargs -P "$procs" -I '{}' env SHARD_INDEX='{}' SHARDS="$shards" \
    "$here/shard.sh" "$kind" "$outdir" "$@"

if [ "$kind" = batch ]; then
    exec "$QUEENS" merge "$outdir"/shard-*-of-"$shards".jsonl -o "$outdir/merged.jsonl"
elif [ "$kind" = threshold ]; then
    exec "$QUEENS" threshold merge "$outdir"/shard-*-of-"$shards" -o "$outdir/merged"
else
    exec "$QUEENS" merge "$outdir"/shard-*-of-"$shards".json
fi
