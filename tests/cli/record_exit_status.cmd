record
--out
$WORK/t
--
sh
-c
exit 5
