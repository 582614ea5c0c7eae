# The gateway chunk table says that it leaves out the 0-byte gateway message
pipeline
$DATA/gw_empty.csv
