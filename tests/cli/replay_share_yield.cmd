# replay_share with ranks that yield their core while they wait (tests/data/share_yield.conf,
# the default). Rank 1 waits in its receives from 0 us on and gives core 1 up: ranks 0 and 2
# have a core each, compute their 150 us at once and send at 150 us, leaving at 150.401 us;
# rank 1 takes a free core as each message is in and leaves at 150.501 and 150.601 us: the
# run takes what it takes without time sharing (150.6 us), where fixed turns make it 350.5 us.
replay
$DATA/share.csv
--model
$DATA/share_yield.conf
