calibrate
--max-size
64KB
