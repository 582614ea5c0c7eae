info
$DATA/truncated.csv
