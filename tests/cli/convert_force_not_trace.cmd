# --force replaces only a trace retrace wrote, not a folder of other files
convert
$EXAMPLES/halo.csv
--force
$WORK/out
