convert
$DATA/raw_tiny
$WORK/out.csv
