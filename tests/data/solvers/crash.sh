#!/bin/sh
# Dies of a signal before answering, as a crashing solver does.
echo "c starting" >&2
kill -SEGV $$
