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

int cli_out_report(const cli_out *o, const rt_report *r, int text, const cli_plot *p)
{
    for (unsigned i = 0; text && i < r->tables.n; i++) {
        if (i)
            fputc('\n', stdout);
        if (rt_table_write_text(r->tables.t[i], stdout))
            return cli_error("cannot write the output");
    }
    rt_err err;
    if (o->csv && rt_tables_write_csv(&r->tables, o->csv, &err))
        return cli_error("%s", err.msg);
    if (o->plot && !r->plot)
        return cli_error("%s: %s", o->plot, p->none);
    if (o->plot && rt_plot(r->plot, p->kind, p->title, p->xlabel, p->ylabel, o->plot, &err))
        return cli_error("%s", err.msg);
    return CLI_OK;
}

void cli_out_truncated(const char *note)
{
    if (note)
        cli_warning("%s (the figures cover the events up to there)", note);
}
