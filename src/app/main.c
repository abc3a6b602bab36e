/* main.c — fusediff's command line: parse options, load traces, hand over to a mode. */
#include <errno.h>
#include <getopt.h>
#include <fcntl.h>
#include <regex.h>
#include <locale.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app.h"
#include "config.h"
#include "fusediff/classify.h"
#include "fusediff/fileset.h"
#include "fusediff/outfile.h"
#include "fusediff/regex_guard.h"
#include "fusediff/text.h"
#include "fusediff/gate.h"
#include "fusediff/report.h"
#include "fusediff/structure.h"
#include "fusediff/trace_summary.h"
#include "fusediff/trace.h"
#include "fusediff/trace_dir.h"
#include "progress.h"

enum {
	OPT_HELP = 'h',
	OPT_VERSION = 'V',
	OPT_OUTPUT = 'o',
	OPT_SUMMARY = 1000,
	OPT_REPORT,
	OPT_PHASE,
	OPT_PASS,
	OPT_MODEL,
	OPT_CAPTURE_A,
	OPT_CAPTURE_B,
	OPT_NO_CAPTURE,
	OPT_RULES,
	OPT_PEAKS,
	OPT_LABEL_A,
	OPT_LABEL_B,
	OPT_DEVICE,
	OPT_THEME,
	OPT_NO_COLOR,
	OPT_NO_MOUSE,
	OPT_HEADLESS,
	OPT_SIZE,
	OPT_SCRIPT,
	OPT_FAIL_SLOWER,
	OPT_FAIL_LOST,
	OPT_FAIL_PEAK,
	OPT_MIN_DELTA,
	OPT_PRINT_SCHEMA,
	OPT_RANK,
	OPT_REPEATS,
	OPT_ALIGN,
};

/* clang-format off */
/* Every option, once: getopt's table and --help come from here. */
static const struct option_doc {
	const char *name;
	int has_arg, val;
	const char *arg, *help;
	const char *group; /* starts a group in --help */
} options[] = {
	{ "report", 1, OPT_REPORT, "FORMAT", "write the comparison as text, md, json or csv, or as a trace for Perfetto (perfetto), instead of opening the explorer", "Modes" },
	{ "output", 1, OPT_OUTPUT, "FILE", "write the report to FILE (atomically; gzip-compressed when FILE ends in .gz) instead of standard output", NULL },
	{ "align", 1, OPT_ALIGN, "WHAT", "--report perfetto: start each compared pass (passes, the default) or each layer (layers) of both sides at the same time", NULL },
	{ "summary", 1, OPT_SUMMARY, "TRACE", "print one trace's metadata, event counts, top kernels and unfused chains", NULL },
	{ "print-schema", 0, OPT_PRINT_SCHEMA, NULL, "print the JSON Schema of --report json and exit", NULL },
	{ "phase", 1, OPT_PHASE, "PHASE", "compare prefill, decode, mixed or train (training step) passes, or all (default: the first both have)", "Analysis" },
	{ "pass", 1, OPT_PASS, "REGEX", "annotation names that mark one forward pass (POSIX extended regex)", NULL },
	{ "model", 1, OPT_MODEL, "NAME", "compare the passes of this model (a top-level nn.Module, by name or class) instead of the main one", NULL },
	{ "capture-a", 1, OPT_CAPTURE_A, "PATH", "the graph capture trace (or a directory of them) of the first trace's replayed graphs", NULL },
	{ "capture-b", 1, OPT_CAPTURE_B, "PATH", "the same for the second trace", NULL },
	{ "no-capture", 0, OPT_NO_CAPTURE, NULL, "do not use a capture_traces/ directory next to a trace", NULL },
	{ "rules", 1, OPT_RULES, "FILE", "extra kernel classification rules, tried before the built-in ones", NULL },
	{ "peaks", 1, OPT_PEAKS, "FILE", "GPU peak TFLOPS and TB/s rows (NAME FP32 TF32 BF16 FP8 FP4 TBPS), tried before the built-in table", NULL },
	{ "device", 1, OPT_DEVICE, "N", "analyse the kernels of GPU N, or of all GPUs as one (all) (default: the GPU with the most kernel time)", NULL },
	{ "rank", 1, OPT_RANK, "N", "with two directories of per-rank traces: analyse rank N in full (default: the largest difference)", NULL },
	{ "repeats", 0, OPT_REPEATS, NULL, "the two directories are repeated captures of one run, one per side: their trace files (by name) are pooled as A1 A2 -- B1 B2", NULL },
	{ "label-a", 1, OPT_LABEL_A, "NAME", "name shown for the first trace (default: vendor and GPU)", NULL },
	{ "label-b", 1, OPT_LABEL_B, "NAME", "name shown for the second trace", NULL },
	{ "fail-if-slower", 1, OPT_FAIL_SLOWER, "PCT", "with --report: exit 3 when B's time per pass is more than PCT % above A's, beyond the pass-to-pass noise (all of its 95 % interval, with three passes a side)", "CI gates" },
	{ "fail-on-lost-fusion", 0, OPT_FAIL_LOST, NULL, "with --report: exit 3 when A fuses something that B runs unfused", NULL },
	{ "fail-if-below-peak", 1, OPT_FAIL_PEAK, "CLASS=PCT[,...]", "with --report: exit 3 when B's kernels of CLASS (GEMM, Attention, ...) run below PCT % of the GPU's peak", NULL },
	{ "min-delta-us", 1, OPT_MIN_DELTA, "US", "differences smaller than US microseconds per pass never fail a gate", NULL },
	{ "theme", 1, OPT_THEME, "NAME", "colour theme: dark, light or mono", "Explorer" },
	{ "no-color", 0, OPT_NO_COLOR, NULL, "no colours (also when NO_COLOR is set)", NULL },
	{ "no-mouse", 0, OPT_NO_MOUSE, NULL, "do not use the mouse", NULL },
	{ "headless", 0, OPT_HEADLESS, NULL, "draw into memory instead of a terminal (tests, screenshots)", NULL },
	{ "size", 1, OPT_SIZE, "COLSxROWS", "screen size for --headless (default 120x40)", NULL },
	{ "script", 1, OPT_SCRIPT, "FILE", "key names to play in --headless mode; ':dump NAME' writes the screen", NULL },
	{ "help", 0, OPT_HELP, NULL, "show this help and exit", "Other" },
	{ "version", 0, OPT_VERSION, NULL, "show the version and exit", NULL },
};
/* clang-format on */
#define N_OPTIONS (sizeof options / sizeof options[0])

/* Print text from column `indent` on, wrapped at spaces to stay within `width` columns;
 * continuation lines are indented to the same column. */
static void print_wrapped(FILE *out, const char *text, int indent, int width)
{
	int col = indent;

	while (*text) {
		const char *space = strchr(text, ' ');
		int len = space ? (int)(space - text) : (int)strlen(text);

		if (col > indent && col + 1 + len > width) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', out);
			col++;
		}
		fprintf(out, "%.*s", len, text);
		col += len;
		text += len;
		while (*text == ' ')
			text++;
	}
	fputc('\n', out);
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: fusediff [options] TRACE_A TRACE_B\n"
		"       fusediff --report FORMAT [-o FILE] [options] TRACE_A TRACE_B\n"
		"       fusediff [options] TRACE_A1 TRACE_A2 ... -- TRACE_B1 TRACE_B2 ...\n"
		"       fusediff [--rank N] [options] DIR_A DIR_B\n"
		"       fusediff --repeats [options] DIR_A DIR_B\n"
		"       fusediff --summary TRACE\n"
		"\n"
		"Compare two profiler traces of the same model: kernels by class, layer by\n"
		"layer, and the places where one side fuses work the other runs as separate\n"
		"kernels. TRACE is a PyTorch-profiler (Kineto) .json or .json.gz file, an Nsight\n"
		"Systems SQLite export, rocprofv3 JSON, rocpd, kernel_trace.csv or a\n"
		"rocmProfileData .rpd database, or - for standard input. Two directories of\n"
		"per-rank traces compare rank by rank. Several captures of the same run on a\n"
		"side, with -- between the sides (or two directories of them with --repeats),\n"
		"are pooled as samples of one comparison.\n"
		"With standard output on a terminal it opens an interactive explorer.\n");
	for (size_t i = 0; i < N_OPTIONS; i++) {
		char left[64];

		if (options[i].group)
			fprintf(out, "\n%s:\n", options[i].group);
		if (options[i].val < 256)
			snprintf(left, sizeof left, "-%c, --%s%s%s", options[i].val,
				 options[i].name, options[i].arg ? " " : "",
				 options[i].arg ? options[i].arg : "");
		else
			snprintf(left, sizeof left, "    --%s%s%s", options[i].name,
				 options[i].arg ? " " : "", options[i].arg ? options[i].arg : "");
		if (strlen(left) > 26) /* too wide for the column: the help starts below */
			fprintf(out, "  %s\n%29s", left, "");
		else
			fprintf(out, "  %-26s ", left);
		print_wrapped(out, options[i].help, 29, 80);
	}
	fprintf(out,
		"\nExit status: 0 success, 1 bad input, 2 usage error, 3 a gate failed,\n"
		"4 a gate was asked for but the traces are not comparable. See fusediff(1).\n");
}

static int usage_error(const char *fmt, const char *arg);

/* 1 when the output path would land in dir, a directory (of per-rank traces, or of
 * captures: the report would be read as one of them the next time). */
static int in_dir(const char *output, const char *dir)
{
	struct stat sd, sp;
	char *parent = xstrdup(output), *slash;
	int r;

	if (!ranks_is_dir(dir)) {
		free(parent);
		return 0;
	}
	slash = strrchr(parent, '/');
	if (slash == parent)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	r = stat(slash ? parent : ".", &sp) == 0 && stat(dir, &sd) == 0 && sp.st_dev == sd.st_dev &&
	    sp.st_ino == sd.st_ino;
	free(parent);
	return r;
}

/* 1 when the output path is the input (a file, or standard input as "-"). */
static int is_input(const char *output, const char *input)
{
	struct stat so, si;

	if (input && strcmp(input, "-") == 0)
		return stat(output, &so) == 0 && fstat(STDIN_FILENO, &si) == 0 &&
		       S_ISREG(si.st_mode) && so.st_dev == si.st_dev && so.st_ino == si.st_ino;
	return outfile_same_file(output, input);
}

/* argv in the order given (getopt permutes argv): held here until the traces are split into
 * sides, so that it stays reachable when a usage error returns before. */
static char **volatile argv_given;

/* The explorer's file set: never freed (see main()). */
static struct file_set *volatile explorer_reads;

int app_refuse_input(const struct app_opts *o, const char *path, const char *table)
{
	const char *in = file_set_find(o->reads, path);
	char *p, *f, *t, *msg;

	if (!in)
		return 0;
	p = text_escape_dup(o->output, strlen(o->output));
	f = text_escape_dup(in, strlen(in));
	t = table ? text_escape_dup(table, strlen(table)) : NULL;
	msg = t ? xasprintf("-o %s: its table %s is %s, which this run reads: the report would "
			    "replace it",
			    p, t, f)
		: xasprintf("-o %s is %s, which this run reads: the report would replace it", p, f);
	usage_error("%s", msg);
	free(msg);
	free(p);
	free(f);
	free(t);
	return 1;
}

void app_error(const char *msg)
{
	char *safe = text_escape_dup(msg, strlen(msg));

	fprintf(stderr, "fusediff: %s\n", safe);
	free(safe);
}

/* Standard output was closed when we started: /dev/null stands in for it (so that no file
 * opened later becomes descriptor 1), and whatever would be written there fails instead. */
static int stdout_closed;

static void open_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
			int n = open("/dev/null", fd ? O_WRONLY : O_RDONLY);

			if (n >= 0 && n != fd) {
				dup2(n, fd);
				close(n);
			}
			if (fd == 1)
				stdout_closed = 1;
		}
}

/* 0 when what went to standard output got there, else 1 with the reason (a full disk, a
 * closed pipe): --help and --version must not say they succeeded when nothing was written. */
static int flush_stdout(void)
{
	errno = 0;
	if (stdout_closed) {
		fprintf(stderr, "fusediff: standard output is closed: nothing was written\n");
		return 1;
	}
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	fprintf(stderr, "fusediff: write error: %s\n", strerror(errno ? errno : EIO));
	return 1;
}

static int usage_error(const char *fmt, const char *arg)
{
	char *msg = xasprintf(fmt, arg);

	app_error(msg);
	free(msg);
	fputs("Try 'fusediff --help' for more information.\n", stderr);
	return 2;
}

static int parse_int(const char *s, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	return errno || end == s || *end ? -1 : 0;
}

/* Whether path is a directory (of per-rank traces, or any). */
static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The traces on the command line, args[0..n) (argv once getopt has put the options first): two,
 * or each side's captures with -- between the sides. orig[0..argc): argv as given; sep: the
 * index in orig of the "--" that ended the options, or -1. A "--" with no trace before it only
 * ends the options (fusediff -- A B, for names that start with '-'): the sides are then split
 * at a "--" among the traces, if any. repeat_dirs: --repeats was given (two directories, never
 * split). Fills o's traces and repeats; returns 0, or the exit status of a usage error. */
static int split_traces(struct app_opts *o, char **args, int n, char *const *orig, int argc,
			int sep, int repeat_dirs)
{
	int k = -1, skip = 0; /* side B starts at args[k + skip] */

	if (sep >= 0) {
		k = 0;
		for (int i = 0; i < n; i++)
			for (int j = 1; j < sep && j < argc; j++)
				k += orig[j] == args[i];
		if (k == 0)
			k = -1;
	}
	if (k < 0)
		for (int i = 0; i < n && k < 0; i++)
			if (strcmp(args[i], "--") == 0)
				k = i, skip = 1;
	if (k < 0) { /* two traces */
		if (n != 2) {
			if (n > 2)
				return usage_error(
					"too many traces: '%s' (give two, or each side's "
					"captures with -- between the sides)",
					args[2]);
			usage(stderr);
			return 2;
		}
		o->trace[0] = args[0];
		o->trace[1] = args[1];
		return 0;
	}
	if (k == 0 || k + skip >= n)
		return usage_error("%s", "-- separates the captures of A from those of B: give at "
					 "least one trace on each side");
	o->trace[0] = args[0];
	o->trace[1] = args[k + skip];
	o->repeats[0] = (const char *const *)args + 1;
	o->n_repeats[0] = (size_t)k - 1;
	o->repeats[1] = (const char *const *)args + k + skip + 1;
	o->n_repeats[1] = (size_t)(n - k - skip - 1);
	if (!o->n_repeats[0] && !o->n_repeats[1])
		return 0; /* one trace a side: as two traces */
	if (repeat_dirs)
		return usage_error("%s", "--repeats takes two directories of captures, one per "
					 "side: not traces with -- between the sides");
	for (int i = 0; i < n; i++) {
		if (i == k && skip)
			continue;
		if (strcmp(args[i], "-") == 0)
			return usage_error("%s", "-: standard input cannot be one of several "
						 "captures");
		if (is_dir(args[i]))
			return usage_error("%s is a directory: repeated captures are trace files "
					   "(two directories of per-rank traces compare rank by "
					   "rank)",
					   args[i]);
	}
	return 0;
}

/* The trace files of --repeats' directories: never freed (o.trace and o.repeats point into
 * them until the end). */
static char **volatile repeat_files[2];

/* --repeats: o's two traces are the directories of captures of one run, one per side. Each
 * side's first trace and further captures become the directory's trace files (trace_dir.h,
 * sorted by name), as if given as A1 A2 -- B1 B2, and standard error says which were taken.
 * Returns 0, or the exit status of an error. */
static int take_repeat_dirs(struct app_opts *o)
{
	char **files[2] = { NULL, NULL };
	size_t n[2] = { 0, 0 };

	if (o->rank >= 0)
		return usage_error("%s", "--repeats and --rank do not go together: --rank picks a "
					 "rank of two directories of per-rank traces (different "
					 "work), --repeats pools two directories of captures of "
					 "one run");
	for (int k = 0; k < 2; k++)
		if (!ranks_is_dir(o->trace[k]))
			return usage_error("--repeats takes two directories of captures: %s is "
					   "not a directory",
					   o->trace[k]);
	for (int k = 0; k < 2; k++) {
		struct fd_error err = { { 0 } };

		if (trace_dir_list(o->trace[k], &files[k], &n[k], &err) < 0) {
			app_error(err.msg);
			return 1;
		}
		repeat_files[k] = files[k];
		if (!n[k])
			return usage_error("--repeats: %s holds no trace file (names ending "
					   "in " TRACE_DIR_KINDS ")",
					   o->trace[k]);
	}
	for (int k = 0; k < 2; k++) {
		o->repeat_dir[k] = o->trace[k];
		o->trace[k] = files[k][0];
		o->repeats[k] = (const char *const *)files[k] + 1;
		o->n_repeats[k] = n[k] - 1;
	}
	return 0;
}

/* --repeats: say on standard error which files of its directories are taken ("--repeats: A: 2
 * captures of DIR: a.json, b.json"), once the command line is found right. */
static void say_repeat_dirs(const struct app_opts *o)
{
	for (int k = 0; k < 2 && o->repeat_dir[k]; k++) {
		char *msg =
			o->n_repeats[k]
				? xasprintf("--repeats: %c: %zu captures of %s: %s", k ? 'B' : 'A',
					    o->n_repeats[k] + 1, o->repeat_dir[k],
					    path_basename(o->trace[k]))
				: xasprintf("--repeats: %c: one capture of %s: %s", k ? 'B' : 'A',
					    o->repeat_dir[k], path_basename(o->trace[k]));

		for (size_t i = 0; i < o->n_repeats[k]; i++) {
			char *m = xasprintf("%s, %s", msg, path_basename(o->repeats[k][i]));

			free(msg);
			msg = m;
		}
		app_error(msg);
		free(msg);
	}
}

/* --summary: the session of one trace (session_open_one()), its summary on standard output. */
static int run_summary(const char *path, const struct app_opts *o)
{
	struct session_opts so = app_session_opts(o);
	struct session *s;
	struct fd_error err;
	struct progress pr;
	const struct side *sd;
	int rc;

	so.sha256 = 0; /* (--report json with --summary: no report, no provenance) */
	progress_init(&pr, path, NULL);
	so.progress = progress_side;
	so.progress_user = &pr;
	rc = session_open_one(&s, path, &so, &err);
	progress_end(&pr);
	if (rc < 0) {
		app_error(err.msg);
		return 1;
	}
	sd = session_side(s, 0);
	rc = trace_summary_print(stdout, sd->t, &sd->classes, sd, session_classifier(s),
				 session_peaks(s));
	session_close(s);
	if (rc < 0 || fflush(stdout) != 0) {
		fprintf(stderr, "fusediff: write error: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct option longopts[N_OPTIONS + 1];
	struct app_opts o = { .phase = -1, .device = -1, .fail_if_slower = -1, .rank = -1 };
	const char *summary = NULL;
	const char *last_optarg = NULL;
	char **orig;
	int c, repeat_dirs = 0;

	open_std_fds();
#ifdef M_MMAP_THRESHOLD
	/* Large blocks (windows, the gzip ring, record arrays) always mapped, so that each goes
	 * back to the system when freed: glibc's moving threshold would serve them from the heap
	 * once the first was freed, where their pages stay. --summary of a 1.2 GB gzip trace:
	 * peak RSS 80.8 -> 78.0 MB. */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
	setlocale(LC_CTYPE, "");
	for (size_t i = 0; i < N_OPTIONS; i++)
		longopts[i] = (struct option){ options[i].name, options[i].has_arg, NULL,
					       options[i].val };
	memset(&longopts[N_OPTIONS], 0, sizeof longopts[N_OPTIONS]);
	app_env_read(&o.env); /* the only place the environment is read (but TERM, HOME: src/ui) */
	o.no_color = o.env.no_color;

	opterr = 0;
	orig = argv_given = xmalloc((size_t)argc * sizeof *orig);
	memcpy(orig, argv, (size_t)argc * sizeof *orig);
	while ((c = getopt_long(argc, argv, ":hVo:", longopts, NULL)) != -1) {
		long v;

		last_optarg = optarg;

		switch (c) {
		case OPT_HELP: usage(stdout); return flush_stdout();
		case OPT_VERSION: printf("fusediff %s\n", PACKAGE_VERSION); return flush_stdout();
		case OPT_PRINT_SCHEMA: fputs(report_json_schema, stdout); return flush_stdout();
		case OPT_SUMMARY:
			if (optarg[0] == '-' && optarg[1]) {
				/* an option after --summary (--summary --device 1 FILE): read it
				 * as one, the trace comes after the options */
				summary = "";
				optind--;
				break;
			}
			summary = optarg;
			break;
		case OPT_REPORT:
			if (report_format_from_name(optarg) < 0)
				return usage_error(
					"--report takes text, md, json, csv or perfetto, not '%s'",
					optarg);
			o.report = optarg;
			break;
		case OPT_OUTPUT: o.output = optarg; break;
		case OPT_ALIGN:
			if (strcmp(optarg, "passes") != 0 && strcmp(optarg, "layers") != 0)
				return usage_error("--align takes passes or layers, not '%s'",
						   optarg);
			o.align_layers = strcmp(optarg, "layers") == 0;
			o.align = optarg;
			break;
		case OPT_PHASE:
			o.phase = phase_from_name(optarg);
			if (o.phase < 0)
				return usage_error("--phase takes prefill, decode, mixed, train or "
						   "all, not '%s'",
						   optarg);
			break;
		case OPT_PASS: o.pass_regex = optarg; break;
		case OPT_MODEL: o.model = optarg; break;
		case OPT_CAPTURE_A: o.capture[0] = optarg; break;
		case OPT_CAPTURE_B: o.capture[1] = optarg; break;
		case OPT_NO_CAPTURE: o.no_capture = 1; break;
		case OPT_RULES: o.rules = optarg; break;
		case OPT_PEAKS: o.peaks = optarg; break;
		case OPT_LABEL_A: o.label[0] = optarg; break;
		case OPT_LABEL_B: o.label[1] = optarg; break;
		case OPT_DEVICE:
			if (strcmp(optarg, "all") == 0)
				v = TRACE_ALL_DEVICES;
			else if (parse_int(optarg, &v) < 0 || v < 0 || v > INT32_MAX)
				return usage_error("--device needs a device number or 'all', not "
						   "'%s'",
						   optarg);
			o.device = (int32_t)v;
			break;
		case OPT_FAIL_SLOWER:
		case OPT_MIN_DELTA: {
			char *end;
			double d = strtod(optarg, &end);

			if (end == optarg || *end || !(d >= 0) || d > 1e12)
				return usage_error(
					c == OPT_FAIL_SLOWER
						? "--fail-if-slower needs a percentage, "
						  "not '%s'"
						: "--min-delta-us needs microseconds, not '%s'",
					optarg);
			if (c == OPT_FAIL_SLOWER)
				o.fail_if_slower = d;
			else
				o.min_delta_us = d;
			break;
		}
		case OPT_RANK:
			if (parse_int(optarg, &v) < 0 || v < 0 || v > INT32_MAX)
				return usage_error("--rank needs a rank number, not '%s'", optarg);
			o.rank = v;
			break;
		case OPT_REPEATS: repeat_dirs = 1; break;
		case OPT_FAIL_LOST: o.fail_on_lost_fusion = 1; break;
		case OPT_FAIL_PEAK: {
			struct gate_opts g = { 0 };
			struct fd_error e = { { 0 } };

			if (gate_parse_peaks(optarg, &g, &e) < 0)
				return usage_error("%s", e.msg);
			o.fail_if_below_peak = optarg;
			break;
		}
		case OPT_THEME: o.theme = optarg; break;
		case OPT_NO_COLOR: o.no_color = 1; break;
		case OPT_NO_MOUSE: o.no_mouse = 1; break;
		case OPT_HEADLESS: o.headless = 1; break;
		case OPT_SIZE: {
			int cols, rows;
			char tail;

			if (sscanf(optarg, "%dx%d%c", &cols, &rows, &tail) != 2 || cols < 1 ||
			    rows < 1 || cols > 1000 || rows > 1000)
				return usage_error(
					"--size takes COLSxROWS such as 120x40, not '%s'", optarg);
			o.cols = cols;
			o.rows = rows;
			break;
		}
		case OPT_SCRIPT: o.script = optarg; break;
		case ':': return usage_error("option '%s' needs an argument", argv[optind - 1]);
		default:
			if (optopt && optopt < 256) {
				char opt[3] = { '-', (char)optopt, '\0' };

				return usage_error("unknown option '%s'", opt);
			}
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (summary) {
		if (!*summary) {
			if (optind == argc)
				return usage_error("%s", "--summary needs a trace");
			summary = argv[optind++];
		}
		if (optind != argc)
			return usage_error("--summary takes one trace, not also '%s'",
					   argv[optind]);
		if (stdout_closed)
			return flush_stdout();
		app_cleanup_on_signals();
		return run_summary(summary, &o);
	}
	{
		/* the "--" that ended the options: argv[optind - 1] once getopt is done, unless that
		 * is an option's argument */
		int sep = -1, rc;

		if (optind > 1 && strcmp(argv[optind - 1], "--") == 0 &&
		    argv[optind - 1] != last_optarg)
			for (int i = 1; i < argc && sep < 0; i++)
				if (orig[i] == argv[optind - 1])
					sep = i;
		rc = split_traces(&o, argv + optind, argc - optind, orig, argc, sep, repeat_dirs);
		free(orig);
		argv_given = NULL;
		if (rc == 0 && repeat_dirs)
			rc = take_repeat_dirs(&o);
		if (rc)
			return rc;
	}
	{ /* two traces or two directories of ranks; --rank picks one of the latter */
		int dir[2] = { ranks_is_dir(o.trace[0]), ranks_is_dir(o.trace[1]) };
		char *msg = NULL;
		int rc;

		if (dir[0] != dir[1])
			msg = xasprintf("%s is a directory and %s is not: give two traces, or two "
					"directories of per-rank traces",
					o.trace[dir[0] ? 0 : 1], o.trace[dir[0] ? 1 : 0]);
		else if (!dir[0] && o.rank >= 0)
			msg = xasprintf("--rank %lld goes with two directories of per-rank traces",
					(long long)o.rank);
		if (msg) {
			char *esc = text_escape_dup(msg, strlen(msg));

			rc = usage_error("%s", esc);
			free(esc);
			free(msg);
			return rc;
		}
	}
	if (stdout_closed && ((o.report && !o.output) || o.headless))
		return flush_stdout();
	if (o.pass_regex) { /* checked before anything is loaded */
		char why[160];
		regex_t re;
		int rc = regex_guard(o.pass_regex, why, sizeof why);

		if (rc == 0 && (rc = regcomp(&re, o.pass_regex, REG_EXTENDED | REG_NOSUB)) != 0) {
			char r[128];

			regerror(rc, NULL, r, sizeof r);
			snprintf(why, sizeof why, "invalid regular expression: %s", r);
		} else if (rc == 0)
			regfree(&re);
		if (rc != 0) {
			char *p = text_escape_dup(o.pass_regex, strlen(o.pass_regex));
			char *msg = xasprintf("--pass '%.200s%s': %s", p,
					      strlen(p) > 200 ? "..." : "", why);

			rc = usage_error("%s", msg);
			free(msg);
			free(p);
			return rc;
		}
	}
	if (o.output) { /* the report must never replace what it reads */
		const char *inputs[] = { o.trace[0],   o.trace[1], o.capture[0],
					 o.capture[1], o.rules,	   o.peaks };
		static const char *const what[] = { "trace A",	       "trace B",
						    "capture trace A", "capture trace B",
						    "rules file",      "peaks file" };

		for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++)
			if (is_input(o.output, inputs[i]) ||
			    (i < 2 && in_dir(o.output, inputs[i]))) {
				char *p = text_escape_dup(o.output, strlen(o.output));
				char *msg = xasprintf(
					is_input(o.output, inputs[i])
						? "-o %s is the %s: the report would replace it"
						: "-o %s is inside the %s, a directory of ranks: "
						  "the report would become one of its traces",
					p, what[i]);
				int rc = usage_error("%s", msg);

				free(msg);
				free(p);
				return rc;
			}
		for (int k = 0; k < 2; k++)
			if (o.repeat_dir[k] && trace_dir_is_trace_name(path_basename(o.output)) &&
			    in_dir(o.output, o.repeat_dir[k])) {
				char *p = text_escape_dup(o.output, strlen(o.output));
				char *d = text_escape_dup(o.repeat_dir[k], strlen(o.repeat_dir[k]));
				char *msg =
					xasprintf("-o %s is inside %s, the directory of captures "
						  "of %c: the report would become one of its "
						  "captures",
						  p, d, k ? 'B' : 'A');
				int rc = usage_error("%s", msg);

				free(msg);
				free(d);
				free(p);
				return rc;
			}
		for (int k = 0; k < 2; k++)
			for (size_t i = 0; i < o.n_repeats[k]; i++)
				if (is_input(o.output, o.repeats[k][i])) {
					char *p = text_escape_dup(o.output, strlen(o.output));
					char *msg = xasprintf("-o %s is a capture of trace %c: the "
							      "report would replace it",
							      p, k ? 'B' : 'A');
					int rc = usage_error("%s", msg);

					free(msg);
					free(p);
					return rc;
				}
	}
	if (o.align && (!o.report || report_format_from_name(o.report) != REPORT_PERFETTO))
		return usage_error("%s", "--align goes with --report perfetto");
	if (!o.report && (o.fail_if_slower >= 0 || o.fail_on_lost_fusion || o.fail_if_below_peak))
		return usage_error("%s", "the gates (--fail-if-slower, --fail-on-lost-fusion, "
					 "--fail-if-below-peak) go with --report FORMAT");
	if (o.output && !o.report)
		return usage_error("%s", "-o FILE goes with --report FORMAT");
	/* what the run reads besides the traces (the loader adds those it opens); -o is checked
	 * against it again once the traces are loaded */
	o.reads = file_set_new();
	file_set_add_path(o.reads, o.rules);
	file_set_add_path(o.reads, o.peaks);
	file_set_add_path(o.reads, o.env.user_rules);
	if (o.report) {
		int rc = 2;

		if (!o.output || !app_refuse_input(&o, o.output, NULL)) {
			say_repeat_dirs(&o);
			app_cleanup_on_signals();
			rc = app_report(&o);
		}
		file_set_free(o.reads);
		return rc;
	}
	/* the explorer's set stays to the end, reachable (a load cancelled by a key or a signal
	 * may still run) */
	explorer_reads = o.reads;
	if (!o.headless && !isatty(STDOUT_FILENO))
		return usage_error(
			"%s", "standard output is not a terminal: use --report text|md|json|csv "
			      "for a report, or run in a terminal for the explorer");
	say_repeat_dirs(&o);
	return app_tui(&o);
}
