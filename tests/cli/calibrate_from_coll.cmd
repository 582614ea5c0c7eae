calibrate
--from
$DATA/calib_from_coll.csv
