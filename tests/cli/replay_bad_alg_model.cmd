# a model whose [calls] gives a nonblocking collective an algorithm cost: one error line with
# file and line, status 2
replay
$DATA/an_small.csv
--model
$DATA/bad_alg_model.conf
