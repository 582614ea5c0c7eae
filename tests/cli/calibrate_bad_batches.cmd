calibrate
--batches
0
