# Sourced by the benchmark scripts: the machine a figure was measured on. These VMs come with
# Intel or AMD CPUs and share their cores, so every table names the CPU, the clock source and
# the load average.
bench_cpu() {
    sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1
}
bench_clock() {
    cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2> /dev/null ||
        echo unknown
}
bench_load() { # the 1, 5 and 15 minute load averages
    cut -d' ' -f1-3 /proc/loadavg 2> /dev/null || echo unknown
}
bench_machine() { # one line: "CPU, clock source C, load average L"
    echo "$(bench_cpu), clock source $(bench_clock), load average $(bench_load)"
}
