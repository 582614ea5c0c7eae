info
$DATA/group_huge.otf2
