# An unknown collective is reported as such, whatever its algorithm
hist
$DATA/an_small.csv
--coll
bogus=x
