# calibrate --out refuses an existing file before MPI measures anything
calibrate
--quick
--out
$WORK/m.conf
