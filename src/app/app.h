/* app.h — what the command line asked for, and the program's modes. Private to the program
 * (src/app/); the libraries know nothing of it. */
#ifndef FUSEDIFF_APP_H
#define FUSEDIFF_APP_H

#include <stdint.h>

#include <string.h>

#include "fusediff/fileset.h"
#include "fusediff/ranks.h"
#include "fusediff/session.h"
#include "fusediff/util.h"

/* The environment the program reads (env.c), read once in main() and passed down: the
 * libraries read none. */
struct app_env {
	int no_color;		   /* NO_COLOR set and not empty */
	const char *user_rules;	   /* the per-user rules file (XDG_CONFIG_HOME, HOME), or NULL */
	char user_rules_buf[4096]; /* (user_rules points here) */
	struct trace_load_tuning tuning; /* TMPDIR (default /tmp), FUSEDIFF_SERIAL,
					    FUSEDIFF_INFLATE, FUSEDIFF_SPLIT_MIN,
					    FUSEDIFF_GZIP_THREAD_MIN, FUSEDIFF_NO_MEMO */
	int timings;			 /* FUSEDIFF_TIMINGS */
	const char *dump_dir;		 /* FUSEDIFF_DUMP_DIR, or NULL: the current directory */
};

/* Fill e from the environment. */
void app_env_read(struct app_env *e);

struct app_opts {
	const char *trace[2];	       /* A and B (the first capture of each side) */
	const char *const *repeats[2]; /* each side's further captures (A1 A2 -- B1 B2) */
	const char *repeat_dir[2];     /* --repeats: each side's directory of captures, or NULL */
	size_t n_repeats[2];
	const char *report;		/* --report FORMAT, or NULL */
	const char *align;		/* --align passes|layers, or NULL */
	int align_layers;		/* --align layers */
	const char *output;		/* -o FILE, or NULL for standard output */
	const char *rules;		/* --rules FILE */
	const char *peaks;		/* --peaks FILE */
	const char *pass_regex;		/* --pass REGEX */
	const char *model;		/* --model NAME */
	const char *capture[2];		/* --capture-a, --capture-b PATH */
	int no_capture;			/* --no-capture */
	int phase;			/* -1: automatic; enum phase; PHASE_COUNT: all */
	const char *label[2];		/* --label-a, --label-b */
	int32_t device;			/* --device N, -1: automatic */
	const char *theme;		/* --theme NAME, NULL: default */
	int no_color, no_mouse;		/* --no-color (or NO_COLOR set), --no-mouse */
	int headless;			/* --headless */
	int cols, rows;			/* --size COLSxROWS (headless), 0: default */
	const char *script;		/* --script FILE (headless) */
	double fail_if_slower;		/* --fail-if-slower PCT, -1: not asked */
	int fail_on_lost_fusion;	/* --fail-on-lost-fusion */
	const char *fail_if_below_peak; /* --fail-if-below-peak CLASS=PCT[,...], NULL: not asked */
	double min_delta_us;		/* --min-delta-us US */
	int64_t rank;			/* --rank N, -1: the rank with the largest |B - A| */
	struct file_set *reads;		/* every file the run reads: what no output may replace */
	struct app_env env;		/* the environment, read once */
};

/* The pipeline's options from the command line's (no progress callback). */
static inline struct session_opts app_session_opts(const struct app_opts *o)
{
	return (struct session_opts){ .rules = o->rules,
				      .user_rules = o->env.user_rules,
				      .peaks = o->peaks,
				      .pass_regex = o->pass_regex,
				      .model = o->model,
				      .capture = { o->capture[0], o->capture[1] },
				      .repeats = { o->repeats[0], o->repeats[1] },
				      .n_repeats = { o->n_repeats[0], o->n_repeats[1] },
				      .no_capture = o->no_capture,
				      .device = o->device,
				      .sha256 = o->report && (strcmp(o->report, "json") == 0 ||
							      strcmp(o->report, "perfetto") == 0),
				      .label = { o->label[0], o->label[1] },
				      .reads = o->reads,
				      .tuning = o->env.tuning,
				      .timings = o->env.timings };
}

/* The JSON Schema of --report json (src/app/report.schema.json), for --print-schema. */
extern const char report_json_schema[];

/* Open the session of o's two traces, or, when both are directories of per-rank traces
 * (ranks.h), pair and compare their ranks (*ranks, owned by the caller, ranks_free()) and open
 * the session of the rank to analyse in full. so: the session options (progress). Returns 0,
 * or -1 with a message in err (*s and *ranks NULL). */
int app_open(const struct app_opts *o, const struct session_opts *so, struct session **s,
	     struct comparison_ranks **ranks, struct fd_error *err);
/* The session of rank index of r, which becomes r's chosen rank (r->asked when it was
 * another); r is unchanged on failure. Returns 0, or -1 with a message in err. */
int app_open_rank(const struct session_opts *so, struct comparison_ranks *r, size_t index,
		  struct session **s, struct fd_error *err);

/* When path (an output) is a file the run reads (o->reads, links followed): 1 after a usage
 * error "-o OUTPUT is FILE, which this run reads: the report would replace it" (table: the
 * file of a directory of CSV tables, or NULL); else 0. */
int app_refuse_input(const struct app_opts *o, const char *path, const char *table);
/* Handlers of the signals that end the program (not the explorer's: it has its own) that
 * remove the temporary files of cleanup.h first. */
void app_cleanup_on_signals(void);
/* --report: write the report. Returns the exit status. */
int app_report(const struct app_opts *o);
/* Print "fusediff: MSG" on standard error with msg made safe for a terminal (text_escape():
 * file names and echoed input can hold escape sequences). Every error goes through here. */
void app_error(const char *msg);
/* The interactive explorer (or --headless). Returns the exit status. */
int app_tui(const struct app_opts *o);

#endif
