calibrate
--help
