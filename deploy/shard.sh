#!/bin/sh
# One shard of a sharded queens run, whichever scheduler started it.
#
#   shard.sh count OUTDIR [COUNT ARGS…]     e.g. shard.sh count /results --n 19
#   shard.sh batch OUTDIR [BATCH ARGS…]     e.g. shard.sh batch /results corpus.jsonl --timeout 60
#   shard.sh threshold OUTDIR --n N --k K    e.g. shard.sh threshold /results --n 20 --k 5
#   shard.sh threshold-check CERTDIR         one part of the check of a merged certificate
#
# The shard comes from the scheduler's environment:
#   Kubernetes Indexed Job: JOB_COMPLETION_INDEX (0-based) and SHARDS (set it to .spec.completions)
#   Slurm array (--array=0-N-1): SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT
#   anything else: SHARD_INDEX and SHARDS
# The result is OUTDIR/shard-INDEX-of-N.json (count) or .jsonl (batch), written whole and
# renamed into place, so a re-run of a shard (a retried pod, a requeued task) is safe; a
# threshold shard's certificate is the folder OUTDIR/shard-INDEX-of-N, rewritten by a re-run,
# and its checkpoint OUTDIR/checkpoint-INDEX-of-N, from which a re-run (a requeued task, one
# stopped by SIGTERM at its time limit) resumes; a part of a check writes
# CERTDIR/check-INDEX-of-N.json, and `queens threshold check CERTDIR --parts N` accepts the
# certificate from all N.
# Afterwards, `queens merge OUTDIR/shard-*` (`queens threshold merge OUTDIR/shard-* -o OUT`)
# puts the shards together.
set -eu

QUEENS=${QUEENS:-queens}
usage() {
    echo "usage: shard.sh count|batch|threshold|threshold-check OUTDIR [ARGS…]" >&2
    exit 2
}
[ $# -ge 2 ] || usage
kind=$1
outdir=$2
shift 2

index=${JOB_COMPLETION_INDEX:-${SLURM_ARRAY_TASK_ID:-${SHARD_INDEX:-}}}
count=${SHARDS:-${SLURM_ARRAY_TASK_COUNT:-}}
if [ -z "$index" ] || [ -z "$count" ]; then
    echo "shard.sh: no shard index or count in the environment (JOB_COMPLETION_INDEX + SHARDS," \
        "SLURM_ARRAY_TASK_ID + SLURM_ARRAY_TASK_COUNT, or SHARD_INDEX + SHARDS)" >&2
    exit 2
fi
mkdir -p "$outdir"
case $kind in
count)
    exec "$QUEENS" count "$@" --shard "$index/$count" -o "$outdir/shard-$index-of-$count.json"
    ;;
threshold)
    exec "$QUEENS" threshold "$@" --shard "$index/$count" \
        --checkpoint "$outdir/checkpoint-$index-of-$count" \
        --certificate "$outdir/shard-$index-of-$count"
    ;;
threshold-check)
    exec "$QUEENS" threshold check "$outdir" --shard "$index/$count" "$@"
    ;;
batch)
    # Exit 4 means some instances hit their limit: they are in the file as `timeout`, which
    # is a result (merge counts them), not a failure to retry.
    rc=0
    "$QUEENS" batch "$@" --shard "$index/$count" -o "$outdir/shard-$index-of-$count.jsonl" || rc=$?
    [ "$rc" -eq 4 ] && rc=0
    exit "$rc"
    ;;
*)
    usage
    ;;
esac
