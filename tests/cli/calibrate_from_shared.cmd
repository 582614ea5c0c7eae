calibrate
--from
$DATA/calib_from_shared.csv
