profile
$DATA/damaged.otf2
