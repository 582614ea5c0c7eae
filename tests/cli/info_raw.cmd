info
$DATA/raw_tiny
