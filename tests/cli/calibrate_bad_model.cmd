calibrate
--model
$DATA/bad_model.conf
