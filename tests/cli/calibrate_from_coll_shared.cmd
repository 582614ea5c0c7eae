calibrate
--from
$DATA/calib_from_coll_shared.csv
