# record checks where the trace goes before the program starts: no folder, no run
record
--out
$WORK/no/such/dir/t
--
sh
-c
echo the program ran
