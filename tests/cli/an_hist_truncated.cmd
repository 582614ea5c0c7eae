hist
$DATA/truncated.csv
