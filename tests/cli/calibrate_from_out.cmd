calibrate
--from
$DATA/calib_from.csv
--out
$WORK/m.conf
