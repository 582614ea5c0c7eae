hist
$DATA/an_small.csv
--threads
+2
