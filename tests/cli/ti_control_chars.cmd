# A control character from an input is written escaped in the error line (\r, \xNN)
info
$DATA/ti/ctrl/ctrl.ti
