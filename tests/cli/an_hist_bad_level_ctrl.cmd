# Control characters of an argument are written escaped in the error line
hist
$DATA/an_small.csv
--level
bytes
