record
--out
$WORK/t
