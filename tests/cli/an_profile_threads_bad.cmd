profile
$DATA/an_small.csv
--threads
257
