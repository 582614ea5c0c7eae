info
$DATA/ti/smpi/app.ti
