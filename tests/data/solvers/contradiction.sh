#!/bin/sh
# Exits with the SAT status (10) but says UNSATISFIABLE.
echo "s UNSATISFIABLE"
exit 10
