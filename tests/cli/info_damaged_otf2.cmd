info
$DATA/damaged.otf2
