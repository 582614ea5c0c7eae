/*
 * Internal: what the parts of the CSV form share (csv_reader.c reads lines and events,
 * csv_defs.c the definition records, csv_writer.c writes): the 12 columns of an event
 * line, and the reader's state with the fields of the record in hand.
 */
#ifndef RT__CSV_H
#define RT__CSV_H

#include <csv.h>
#include <stdio.h>

#include "rt__trace.h"

#define RT__CSV_SHOW_LEN 48 /* room for a field quoted in an error message */

/* The columns of an event line. */
enum {
    RT__CSV_RANK,
    RT__CSV_TIME,
    RT__CSV_EVENT,
    RT__CSV_CALL,
    RT__CSV_COMM,
    RT__CSV_PEER,
    RT__CSV_TAG,
    RT__CSV_BYTES,
    RT__CSV_RBYTES,
    RT__CSV_CONTYPE,
    RT__CSV_REQ,
    RT__CSV_OP,
    RT__CSV_NFIELDS
};
/* An optional thirteenth column after them, on the events that carry element sizes
 * (rt_event.esize, resize) in a trace that records them: "S/R", the sizes in bytes of the
 * bytes and the rbytes side, each empty when unknown ("4/4", "8/", "/12"). A line without it
 * has neither (every line of traces before sizes). */
#define RT__CSV_ESIZE RT__CSV_NFIELDS
/* And an optional fourteenth on the events of a thread other than the rank's first
 * (rt_event.thread, 1 to RT_THREAD_MAX), after the sizes column, which may then be empty. A
 * line without it is of thread 0 (every line of traces before threads). */
#define RT__CSV_THREAD (RT__CSV_NFIELDS + 1)

extern const char *const rt__csv_field_names[RT__CSV_NFIELDS];
/* The RT_EVENT_KINDS letter of each optional column (0: every event has it). */
extern const char rt__csv_field_letters[RT__CSV_NFIELDS];

typedef struct rt__csv_reader {
    FILE *f;
    struct csv_parser parser;
    char *line;
    size_t line_cap;
    unsigned long lineno;  /* the line of the record being handled */
    unsigned long ev_line; /* the line of the last event handed out */
    int unterminated;      /* the record's line had no newline, so it is the file's last */
    /* The record's fields, each NUL-terminated, in one buffer reused from line to line and
     * sized for the line before parsing. Fields past the thirteenth are only counted. */
    char *text;
    size_t text_len, text_cap;
    size_t off[RT__CSV_THREAD + 1];
    size_t nfields;
    int have_ranks, in_events;
    unsigned char *proc_seen; /* bitmap over world ranks while definitions are read */
    rt_event pending;         /* the first event, read while looking for the definitions */
    int has_pending;
    unsigned long pending_line;
    int done;    /* 1: at the end; -1: failed, and fail says why */
    char *note;  /* a "# truncated: " comment: reported at the end */
    rt_err fail; /* replayed by later calls so a failed reader never resumes mid-file */
} rt__csv_reader;

static inline char *rt__csv_fld(const rt__csv_reader *cr, int i)
{
    return cr->text + cr->off[i];
}

/* A field as it may appear in a one-line message: short, printable ASCII. */
const char *rt__csv_show(char out[RT__CSV_SHOW_LEN], const char *s);

/* A number up to max, or the error naming the field (what) it is in. */
int rt__csv_get_u(const char *s, uint64_t max, const char *what, uint64_t *out, rt_err *e);

/* The definition record in cr (csv_defs.c), added to r->defs: 2, or < 0 (e without the
 * place), also for a record that is no definition. */
int rt__csv_definition(rt_reader *r, rt__csv_reader *cr, rt_err *e);

#endif /* RT__CSV_H */
