#!/bin/sh
# A "solver" whose output is not a model.
echo "hello, I am not a SAT solver"
exit 10
