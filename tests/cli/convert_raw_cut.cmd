# A trace assembled from raw files cut short names itself in its warning and note, not
# the raw files (record removes them once assembled)
convert
$DATA/raw_cut
$WORK/t
