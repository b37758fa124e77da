#!/bin/sh
# Claims a model in which the first two cell variables (cells (0,0) and (0,1)) are true: two
# queens in one row, a board the verifier must reject.
echo "s SATISFIABLE"
echo "v 1 2 0"
exit 10
