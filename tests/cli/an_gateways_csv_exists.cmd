# The other CSV files of a report (FILE-NAME.csv) are not overwritten either: checked, all
# of them, before any is written
gateways
$DATA/an_small.csv
--csv
$WORK/gw.csv
