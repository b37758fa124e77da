#!/bin/sh
# Never answers: the deadline must kill it (exec, so the process killed is the sleeper).
exec sleep 60
