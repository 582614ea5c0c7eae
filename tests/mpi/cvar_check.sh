#!/bin/sh
# For every MPICH algorithm retrace forces, the value it writes into the algorithm variable
# must be the value MPICH itself gives that algorithm's name (set in the environment).
# usage: cvar_check.sh CVAR_CHECK
set -u
prog=$1
list=$(timeout 20 "$prog" list) || { echo "FAIL: cvar_check list exited $?"; exit 1; }
[ -n "$list" ] || { echo "FAIL: no algorithm to force: MPI_T shows no MPICH variables"; exit 1; }
failed=0 n=0
while read -r var name value; do
    got=$(env "$var=$name" timeout 20 "$prog" read "$var")
    n=$((n + 1))
    [ "$got" = "$value" ] || { echo "FAIL: $var=$name: MPICH has $got, retrace writes $value"; failed=1; }
done <<TXT
$list
TXT
[ $failed = 0 ] && echo "ok: $n algorithm values agree with MPICH"
exit $failed
