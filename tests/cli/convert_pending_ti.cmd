# Each blocked call becomes the action it was, so that SimGrid's replay blocks where the run
# did; rank 2's waits for a receive from any source, which TI cannot say: left out, with a note.
convert
$DATA/pending.csv
--to
ti
$WORK/p.ti
