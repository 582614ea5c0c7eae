# --timeout ends a command that does not finish: SIGTERM, exit status 124
record
--out
$WORK/t
--timeout
1
--
sleep
30
