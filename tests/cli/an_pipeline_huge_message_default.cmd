pipeline
$DATA/huge_message.csv
