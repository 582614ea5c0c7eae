info
$DATA/ti/bad/bad.ti
