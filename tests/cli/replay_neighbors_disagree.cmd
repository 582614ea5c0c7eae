replay
$DATA/neighbors_disagree.csv
