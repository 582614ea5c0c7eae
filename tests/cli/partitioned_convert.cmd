# A partitioned message and an ordinary one on one channel in opposite orders (tests/data/partitioned.csv):
# the mark written back as the op "partitioned" of both sides, empty for the ordinary message.
convert
$DATA/partitioned.csv
--to
csv
$WORK/p.csv
