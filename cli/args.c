/*
 * Argument scanning for the analysis commands: options anywhere on the line, "--opt VALUE"
 * or "--opt=VALUE", and --coll whose value is optional (taken only when it looks like
 * OP=ALG), which getopt cannot express.
 */
#include <getopt.h>
#include <string.h>

#include "cli.h"

int cli_args_flag(cli_args *a, const char *name)
{
    if (strcmp(a->argv[a->i], name))
        return 0;
    return 1;
}

int cli_args_value(cli_args *a, const char *name, const char **value)
{
    const char *arg = a->argv[a->i];
    size_t n = strlen(name);
    if (strncmp(arg, name, n))
        return 0;
    if (arg[n] == '=') {
        *value = arg + n + 1;
        return 1;
    }
    if (arg[n])
        return 0;
    if (a->i + 1 >= a->argc) {
        a->bad = 1;
        cli_usage_error(a->cmd, "%s: needs a value", name);
        return -1;
    }
    *value = a->argv[++a->i];
    return 1;
}

int cli_args_optional(cli_args *a, const char *name, const char **value)
{
    const char *arg = a->argv[a->i];
    size_t n = strlen(name);
    if (strncmp(arg, name, n) || (arg[n] && arg[n] != '='))
        return 0;
    *value = NULL;
    if (arg[n] == '=')
        *value = arg + n + 1;
    else if (a->i + 1 < a->argc && a->argv[a->i + 1][0] != '-' && strchr(a->argv[a->i + 1], '='))
        *value = a->argv[++a->i];
    return 1;
}

int cli_args_unknown(cli_args *a)
{
    const char *arg = a->argv[a->i];
    a->bad = 1;
    if (arg[0] == '-' && arg[1])
        return cli_usage_error(a->cmd, "%s: unknown option", arg);
    return cli_usage_error(a->cmd, "unexpected argument '%s'", arg);
}

/* --coll and --level, shared by hist and gateways. */
int cli_level_finish(const cli_command *cmd, rt_an_level *l, const char *level,
                     const char *coll_spec)
{
    if (level && !strcmp(level, "wire"))
        l->level = RT_AN_WIRE;
    else if (level && strcmp(level, "call"))
        return cli_usage_error(cmd, "--level: '%s' is not call or wire", level);
    if (coll_spec) {
        if (l->level == RT_AN_CALL && level)
            return cli_usage_error(
                cmd, "--coll: %s chooses algorithms, which only --level wire uses", coll_spec);
        l->level = RT_AN_WIRE;
        rt_err err;
        if (rt_coll_parse_algs(coll_spec, l->alg, &err))
            return cli_usage_error(cmd, "%s", err.msg);
    }
    return CLI_OK;
}

int cli_getopt_error(const cli_command *cmd, int c, char **argv)
{
    const char *arg = argv[optind - 1];
    int n = (int)strcspn(arg, "="); /* "--opt=VALUE" names the option only */
    if (c == ':')
        return cli_usage_error(cmd, "%.*s: needs a value", n, arg);
    if (optopt && arg[0] == '-' && arg[1] != '-')
        return cli_usage_error(cmd, "-%c: unknown option", optopt);
    return cli_usage_error(cmd, "%.*s: unknown option", n, arg);
}

void cli_level_apply_default(rt_an_level *l, unsigned base, const char *coll_spec)
{
    rt_err err;
    for (unsigned op = 0; op < RT_COLL_COUNT; op++)
        l->alg[op] = (uint8_t)base;
    if (coll_spec) /* checked by cli_level_finish: cannot fail here */
        rt_coll_parse_algs(coll_spec, l->alg, &err);
}

void cli_level_trace_default(rt_an_level *l, const char *coll_spec)
{
    if (l->level == RT_AN_WIRE)
        cli_level_apply_default(l, RT_AN_ALG_TRACE, coll_spec);
}
