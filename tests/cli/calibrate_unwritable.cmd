calibrate
--quick
--out
$WORK/missing/model.conf
