calibrate
--fast
