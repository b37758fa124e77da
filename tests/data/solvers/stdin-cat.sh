#!/bin/sh
# Reads the CNF on stdin (its command has no {cnf}) and hands it to the real solver named
# as the first argument, through a file.
f=$(mktemp)
cat > "$f"
"$@" "$f"
status=$?
rm -f "$f"
exit $status
