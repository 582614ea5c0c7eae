replay
--help
