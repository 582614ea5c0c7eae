# Unit tests of the calibration's fit and model file (replayer/calib_fit.c, calib_out.c);
# the engine checks that the fitted one-way time is what a replay charges.
rt_unit_test(calib rt_calib unit/test_calib.c)
target_link_libraries(test_calib PRIVATE rt_sim)
