/* main.c — fusediff's command line: parse options, load traces, hand over to a mode. */
#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fusediff/summary.h"
#include "fusediff/trace.h"

enum {
	OPT_HELP = 'h',
	OPT_VERSION = 'V',
	OPT_SUMMARY = 1000,
	OPT_DEVICE,
};

/* Every option, once: getopt's table and --help come from here. */
static const struct option_doc {
	const char *name;
	int has_arg, val;
	const char *arg, *help;
} options[] = {
	{ "summary", 1, OPT_SUMMARY, "TRACE", "print one trace's metadata, event counts and top kernels" },
	{ "device", 1, OPT_DEVICE, "N", "analyse the kernels of GPU N (default: the one with the most kernel time)" },
	{ "help", 0, OPT_HELP, NULL, "show this help and exit" },
	{ "version", 0, OPT_VERSION, NULL, "show the version and exit" },
};
#define N_OPTIONS (sizeof options / sizeof options[0])

static void usage(FILE *out)
{
	fprintf(out, "usage: fusediff [options] TRACE_A TRACE_B\n"
		     "       fusediff --summary TRACE\n"
		     "\n"
		     "Compare two PyTorch-profiler (Kineto) traces of the same model: kernels by class,\n"
		     "layer by layer, and the places where one side fuses work the other runs as\n"
		     "separate kernels. TRACE is a .json or .json.gz file, or - for standard input.\n"
		     "\n"
		     "Options:\n");
	for (size_t i = 0; i < N_OPTIONS; i++) {
		char left[64];

		if (options[i].val < 256)
			snprintf(left, sizeof left, "-%c, --%s%s%s", options[i].val, options[i].name,
				 options[i].arg ? " " : "", options[i].arg ? options[i].arg : "");
		else
			snprintf(left, sizeof left, "    --%s%s%s", options[i].name, options[i].arg ? " " : "",
				 options[i].arg ? options[i].arg : "");
		fprintf(out, "  %-24s %s\n", left, options[i].help);
	}
	fprintf(out, "\nExit status: 0 success, 1 bad input, 2 usage error. See fusediff(1).\n");
}

static int usage_error(const char *fmt, const char *arg)
{
	fputs("fusediff: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nTry 'fusediff --help' for more information.\n", stderr);
	return 2;
}

static int parse_int(const char *s, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	return errno || end == s || *end ? -1 : 0;
}

static int run_summary(const char *path, const struct trace_load_opts *lo)
{
	struct trace *t;
	struct fd_error err;
	int rc;

	if (trace_load(&t, path, lo, &err) < 0) {
		fprintf(stderr, "fusediff: %s\n", err.msg);
		return 1;
	}
	rc = summary_print(stdout, t);
	trace_free(t);
	if (rc < 0 || fflush(stdout) != 0) {
		fprintf(stderr, "fusediff: write error: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct option longopts[N_OPTIONS + 1];
	const char *summary = NULL;
	struct trace_load_opts lo = { .device = -1 };
	int c;

	setlocale(LC_CTYPE, "");
	for (size_t i = 0; i < N_OPTIONS; i++)
		longopts[i] = (struct option){ options[i].name, options[i].has_arg, NULL, options[i].val };
	memset(&longopts[N_OPTIONS], 0, sizeof longopts[N_OPTIONS]);

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+hV", longopts, NULL)) != -1) {
		long v;

		switch (c) {
		case OPT_HELP:
			usage(stdout);
			return 0;
		case OPT_VERSION:
			printf("fusediff %s\n", PACKAGE_VERSION);
			return 0;
		case OPT_SUMMARY:
			summary = optarg;
			break;
		case OPT_DEVICE:
			if (parse_int(optarg, &v) < 0 || v < 0 || v > INT32_MAX)
				return usage_error("--device needs a device number, not '%s'", optarg);
			lo.device = (int32_t)v;
			break;
		case ':':
			return usage_error("option '%s' needs an argument", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (summary) {
		if (optind != argc)
			return usage_error("--summary takes one trace, not also '%s'", argv[optind]);
		return run_summary(summary, &lo);
	}
	if (argc - optind != 2) {
		usage(stderr);
		return 2;
	}
	/* Until the comparison exists: the summaries of both traces. */
	c = run_summary(argv[optind], &lo);
	if (c == 0) {
		putchar('\n');
		c = run_summary(argv[optind + 1], &lo);
	}
	return c;
}
