calibrate
--quick
--out
