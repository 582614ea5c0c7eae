info
$DATA/ti/overflow/overflow.ti
