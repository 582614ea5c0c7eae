/* retrace convert TRACE --to otf2|csv|ti OUT */
#include <getopt.h>
#include <string.h>

#include "cli.h"

static void convert_usage(FILE *out)
{
    fprintf(out, "usage: retrace convert TRACE [--to otf2|csv|ti] [--force] OUT\n"
                 "\n"
                 "Writes the events and definitions of TRACE in another form:\n"
                 "  otf2   an OTF2 archive: the directory OUT with OUT/traces.otf2 as anchor\n"
                 "  csv    retrace's CSV form, one row per event (see the README)\n"
                 "  ti     a SimGrid time-independent trace for smpirun -replay: the index\n"
                 "         file OUT, one action file per rank in OUT_files (docs/ti.md);\n"
                 "         RETRACE_TI_FLOPS sets the flop rate of compute (default 1e9)\n"
                 "Without --to, OUT ending in .csv means csv, anything else otf2.\n"
                 "OUT must not exist (an empty directory is accepted for otf2; for ti,\n"
                 "OUT_files must not exist either): nothing is overwritten, unless\n"
                 "--force is given: then a trace retrace wrote there is replaced. A trace\n"
                 "cut short is converted up to its last complete event, with a warning.\n");
}

/* The input's note on where it was cut short, about the output instead: "IN...: WHAT" becomes
 * "OUT: WHAT". The output keeps the note (its readers report it) and may outlive the input
 * (record removes the raw files it assembled), so it must not send anyone to the input. */
static void note_for_output(const char *note, const char *in, const char *out, char *buf,
                            size_t len)
{
    size_t n = strlen(in);
    const char *what = note;
    if (!strncmp(note, in, n) && (note[n] == ':' || note[n] == '/')) {
        const char *colon = strstr(note + n, ": ");
        if (colon)
            what = colon + 2;
    }
    snprintf(buf, len, "%s: %s", out, what);
}

int cli_convert(const char *in, const char *outpath, rt_format fmt)
{
    rt_reader *r;
    rt_err err;
    if (rt_reader_open(in, &r, &err) < 0)
        return cli_error("%s", err.msg);
    rt_writer *w;
    if (rt_writer_open(outpath, fmt, rt_reader_defs(r), &w, &err) < 0) {
        rt_reader_close(r);
        return cli_error("%s", err.msg);
    }
    rt_event ev;
    int rc;
    while ((rc = rt_reader_next(r, &ev, &err)) > 0)
        if ((rc = rt_writer_write(w, &ev, &err)) < 0)
            break;
    if (rc < 0) {
        rt_writer_abort(w);
        rt_reader_close(r);
        return cli_error("%s", err.msg);
    }
    char note[2 * RT_ERR_LEN];
    if (rt_reader_truncated(r))
        note_for_output(rt_reader_truncated(r), in, outpath, note, sizeof note);
    if (rt_reader_truncated(r) && rt_writer_set_truncated(w, note, &err) < 0) {
        rt_writer_abort(w);
        rt_reader_close(r);
        return cli_error("%s", err.msg);
    }
    if (rt_writer_close(w, &err) < 0) {
        rt_reader_close(r);
        return cli_error("%s", err.msg);
    }
    if (rt_reader_truncated(r))
        cli_warning("%s", note);
    rt_reader_close(r);
    return CLI_OK;
}

static int convert_run(int argc, char **argv)
{
    static const struct option opts[] = {
        {"to", required_argument, NULL, 't'},
        {"force", no_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},
        {0},
    };
    rt_format fmt = RT_FMT_AUTO;
    int c, k, force = 0;
    opterr = 0;
    optind = 0; /* glibc: a full restart, also of the state a previous scan left */
    while ((c = getopt_long(argc, argv, ":ht:", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            convert_usage(stdout);
            return CLI_OK;
        case 'f':
            force = 1;
            break;
        case 't':
            if ((k = rt_format_lookup(optarg)) < 0)
                return cli_usage_error(&cli_cmd_convert, "--to: takes otf2, csv or ti, not '%s'",
                                       optarg);
            fmt = (rt_format)k;
            break;
        default:
            return cli_getopt_error(&cli_cmd_convert, c, argv);
        }
    }
    if (argc - optind != 2)
        return cli_usage_error(&cli_cmd_convert, "expected TRACE and OUT");
    const char *out = argv[optind + 1];
    if (fmt == RT_FMT_AUTO) {
        size_t n = strlen(out);
        fmt = n > 4 && !strcmp(out + n - 4, ".csv") ? RT_FMT_CSV : RT_FMT_OTF2;
    }
    if (cli_out_claim(&cli_cmd_convert, NULL, out, fmt, force, argv[optind]))
        return CLI_BAD;
    return cli_convert(argv[optind], out, fmt);
}

const cli_command cli_cmd_convert = {"convert", "convert a trace to OTF2, CSV or SimGrid TI",
                                     convert_run, convert_usage};
