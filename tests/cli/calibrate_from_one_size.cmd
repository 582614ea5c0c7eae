calibrate
--from
$DATA/calib_from_one.csv
