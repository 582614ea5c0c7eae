hist
--algorithms
