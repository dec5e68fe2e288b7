#!/usr/bin/env bash
# Prints a python3 that can import matplotlib (for the report's plots and the
# matrix's heat map), or python3 if none can. Debian's matplotlib is installed
# for Debian's python3; a python3 found first on PATH (a virtualenv, pyenv)
# may not see it.
for candidate in python3 /usr/bin/python3; do
  if command -v "$candidate" >/dev/null && "$candidate" -c 'import matplotlib' 2>/dev/null; then
    echo "$candidate"
    exit 0
  fi
done
echo python3
