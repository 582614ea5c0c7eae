calibrate
--max-size=512
