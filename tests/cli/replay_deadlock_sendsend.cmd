replay
$DATA/deadlock_sendsend.csv
