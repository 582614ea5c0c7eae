info
$WORK/nosuch.csv
