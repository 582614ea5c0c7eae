/* Output options shared by the analysis commands: --csv FILE and --plot FILE. */
#include <string.h>

#include "cli.h"

int cli_out_option(cli_args *a, cli_out *o)
{
    int k = cli_args_value(a, "--csv", &o->csv);
    if (k)
        return k;
    k = cli_args_value(a, "--plot", &o->plot);
    if (k == 1) {
        rt_err err;
        if (rt_plot_check_path(o->plot, &err)) {
            a->bad = 1;
            cli_usage_error(a->cmd, "%s: --plot: %s", a->cmd->name, err.msg);
            return -1;
        }
    }
    return k;
}

int cli_out_text(const rt_tables *ts, FILE *out)
{
    for (unsigned i = 0; i < ts->n; i++) {
        if (i)
            fputc('\n', out);
        if (rt_table_write_text(ts->t[i], out))
            return cli_error("cannot write the output");
    }
    return CLI_OK;
}

int cli_out_files(const cli_out *o, const rt_tables *ts, const rt_table *plot,
                  rt_plot_kind kind, const char *title, const char *xlabel, const char *ylabel)
{
    rt_err err;
    if (o->csv && rt_tables_write_csv(ts, o->csv, &err))
        return cli_error("%s", err.msg);
    if (o->plot && plot && rt_plot(plot, kind, title, xlabel, ylabel, o->plot, &err))
        return cli_error("%s", err.msg);
    return CLI_OK;
}

void cli_out_truncated(const char *note)
{
    if (note)
        cli_warning("%s (the figures cover the events up to there)", note);
}
