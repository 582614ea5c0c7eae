profile
$DATA/threads.csv
