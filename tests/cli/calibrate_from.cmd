calibrate
--from
$DATA/calib_from.csv
