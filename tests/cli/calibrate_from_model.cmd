calibrate
--from
$DATA/calib_from.csv
--model
$DATA/fast_net.conf
