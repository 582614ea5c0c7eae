calibrate
--quick
extra
