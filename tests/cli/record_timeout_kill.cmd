# a command that ignores SIGTERM gets SIGKILL 5 s later; still 124
record
--out
$WORK/t
--timeout
1
--
sh
-c
trap "" TERM; exec sleep 30
