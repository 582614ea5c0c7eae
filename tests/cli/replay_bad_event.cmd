# The path is named once, not again before the reader's message that names it
replay
$DATA/bad_event.csv
