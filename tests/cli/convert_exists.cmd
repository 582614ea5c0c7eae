convert
$EXAMPLES/halo.csv
$DATA/truncated.csv
