info
$DATA/raw_cut/r0.t0.rtr
