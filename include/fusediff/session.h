/* session.h — the whole pipeline behind one handle: load two traces (in parallel), classify
 * them, cut them into passes and layers, and compare them for any phase.
 *
 *	struct session *s;
 *	if (session_open(&s, "a.json.gz", "b.json.gz", NULL, &err) < 0) ...
 *	const struct comparison *c = session_compare(s, -1, &err);   // the default phase
 *	report_write(stdout, c, REPORT_TEXT);
 *	session_close(s);
 *
 * The session owns the traces it loaded, the classifier it built and both sides' structure.
 * Each comparison is built the first time its phase is asked for and kept until
 * session_close(): a comparison is never changed once returned, so pointers into it stay
 * valid while the caller asks for other phases. */
#ifndef FUSEDIFF_SESSION_H
#define FUSEDIFF_SESSION_H

#include <stdint.h>

#include "fusediff/classify.h"
#include "fusediff/comparison.h"
#include "fusediff/structure.h"
#include "fusediff/trace.h"
#include "fusediff/trace_load.h"
#include "fusediff/util.h"

struct session;

/* Progress while loading: side 0 or 1, compressed bytes read and the file size (-1 when
 * unknown). Called from the loading threads, one call at a time. Return nonzero to cancel
 * both loads (session_open() then fails with the message "cancelled"). */
typedef int (*session_progress_fn)(void *user, int side, int64_t done, int64_t total);
/* What a side does after its file is read, for a progress screen, called from the side's
 * thread: SESSION_LOADED once the trace is loaded (it may then wait for the other), then
 * SESSION_ANALYSING as it starts classifying its kernels and finding its passes and layers. */
enum session_stage { SESSION_LOADED, SESSION_ANALYSING };
typedef void (*session_stage_fn)(void *user, int side, enum session_stage stage);

struct session_opts {
	const char *rules;	/* --rules FILE, or NULL */
	const char *user_rules; /* the per-user rules file (classifier_new()), read before rules
				   when it exists; NULL: none. The program finds it. */
	const char *peaks;	/* --peaks FILE: GPU peak rows (efficiency.h), or NULL */
	const struct classifier *classifier; /* borrowed: use this one and ignore rules (tests) */
	const char *pass_regex;		     /* --pass REGEX, or NULL: passes found automatically */
	const char *model;	/* --model NAME, or NULL: the main model (compare_opts.model) */
	const char *capture[2]; /* --capture-a/-b PATH: each side's graph capture (capture.h),
				   joined to the graph launches of all of its captures */
	/* Each side's further captures of the same run (fusediff A1 A2 -- B1 B2): loaded after
	 * the side's first trace, on its device, and pooled with it (trace_append()) as more
	 * samples of one comparison; NULL with 0. The capture_traces/ directory looked for is
	 * the first trace's. */
	const char *const *repeats[2];
	size_t n_repeats[2];
	int no_capture;	      /* --no-capture: not the capture_traces/ next to a trace */
	int32_t device;	      /* the GPU to analyse, -1: the one with the most kernel time */
	const char *label[2]; /* NULL: vendor and GPU (or the file name) */
	int sha256; /* hash the input files (trace.sha256: the JSON report's provenance) */
	struct file_set *reads; /* borrowed, or NULL: every file loaded is recorded here */
	const struct comparison_ranks *ranks; /* borrowed: the ranks the traces are one of
						 (ranks.h), shown in the reports; NULL */
	struct trace_load_tuning tuning;      /* how the loader works (trace_load.h), for every file
						 loaded: zeros are the defaults */
	int timings; /* the time of each stage on standard error (timings.h), printed as the first
			comparison is built */
	session_progress_fn progress; /* NULL: none */
	session_stage_fn stage;	      /* NULL: none; called with progress_user */
	void *progress_user;
};

/* Load the traces at paths a and b ("-" is standard input, for one of them at most),
 * classify and structure them. o may be NULL (defaults as above). Owned by caller: free with
 * session_close(). Returns 0, or -1 with a one-line message in err that names the file. */
int session_open(struct session **out, const char *path_a, const char *path_b,
		 const struct session_opts *o, struct fd_error *err);
/* A session of one trace (fusediff --summary): load the trace at path, classify and
 * structure it as side 0 (A), with its graph capture as a comparison would join it; a graph
 * capture given as the trace is taken as it is. The classifier is built on a thread of its
 * own as the loader's threads start (trace_load_opts.started): a mistake in the rules is
 * reported first, and stops the load at its next progress report. o->repeats, o->label,
 * o->model and o->ranks are not used; progress comes for side 0. Such a session compares
 * nothing (session_compare() fails) and its side 1 is empty. Returns 0, or -1 with a one-line
 * message in err that names the file. */
int session_open_one(struct session **out, const char *path, const struct session_opts *o,
		     struct fd_error *err);
/* The same for traces already loaded: a and b (which may be the same trace) are borrowed and
 * must outlive the session; o->device and the progress callback are not used. */
int session_open_traces(struct session **out, const struct trace *a, const struct trace *b,
			const struct session_opts *o, struct fd_error *err);
/* The comparison for phase (enum phase, PHASE_COUNT for all passes, -1 for the first phase
 * both sides have), built on first use. Borrowed: valid until session_close(). NULL with a
 * message in err on failure. A fusion has one number (comparison_fusion.id) in every phase of
 * the session, given by its content: the default phase numbers its fusions 1..n, and the
 * phases that come before the one asked for (the other phases both sides have, then all
 * passes) are built first so that a new fusion's number never depends on what was asked. */
const struct comparison *session_compare(struct session *s, int phase, struct fd_error *err);
/* Build the comparisons of the other phases in the background (one thread), in the order
 * session_compare() would, so that a later session_compare() of another phase finds its
 * comparison built, or waits for one build at most: for the explorer, whose user looks at the
 * first screen meanwhile. The numbers of the fusions are the same as without it. Once a
 * session; session_close() lets the build under way finish and starts no other. */
void session_prefetch(struct session *s);
/* Wait until the prefetch has built every phase (nothing when none was started). */
void session_prefetch_wait(struct session *s);
/* Side 0 (A) or 1 (B): its trace, classification and structure. Borrowed. */
const struct side *session_side(const struct session *s, int side);
/* The classifier both sides were classified with. Borrowed. */
const struct classifier *session_classifier(const struct session *s);
/* The --peaks rows read (an empty table without --peaks). Borrowed. */
const struct peak_table *session_peaks(const struct session *s);
void session_close(struct session *s);

#endif
