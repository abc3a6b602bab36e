/* explorer_int.h — the explorer's state and the interface between its generic part
 * (explorer.c: keys and views; explorer_draw.c: drawing; prompt.c, export.c,
 * explorer_switch.c, popups.c) and the views (views/), which supply their table, state,
 * evidence, drill-down and hooks as data. Private to src/ui/. */
#ifndef FUSEDIFF_EXPLORER_INT_H
#define FUSEDIFF_EXPLORER_INT_H

#include <stdint.h>

#include "fusediff/comparison.h"
#include "fusediff/table.h"
#include "fusediff/ui_explorer.h"
#include "ui_int.h"

/* Quick filter bits. */
enum { QUICK_FUSIONS = 1, QUICK_MISMATCHES = 2 };

/* Kernel name forms cycled with m. */
enum { NAMES_SHORT, NAMES_DEMANGLED, NAMES_RAW, NAMES_COUNT };

/* Lines of text for the evidence pane. */
struct ui_line {
	char *text; /* owned */
	int role;
	int raw; /* 1: already escaped or our own text */
};

struct ui_text {
	struct ui_line *lines;
	size_t n, cap;
};

void ui_text_add(struct ui_text *t, int role, int raw, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Add raw text (a kernel name, a sentence) wrapped to width cells, every line after the first
 * indented by indent blanks; prefix (our own text) starts the first line. */
void ui_text_wrap(struct ui_screen *s, struct ui_text *t, int role, const char *prefix,
		  const char *text, int width, int indent);
void ui_text_clear(struct ui_text *t);

struct ui_view;

#define SCOPE_ALL INT32_MIN

/* What a view shows: every row, or those of one layer, of one class, of one row of the
 * Summed view or of one part of the attribution of B - A. A drill-down opens its target view
 * with a scope. */
struct ui_scope {
	int32_t layer; /* one layer, or SCOPE_ALL */
	int cls;       /* one class, or -1 */
	int32_t group; /* one row of ui_groups(), or -1 */
	uint32_t part; /* one part of comparison.attribution plus one, or 0 */
};
#define SCOPE_NONE ((struct ui_scope){ SCOPE_ALL, -1, -1 })

static inline int ui_scope_eq(struct ui_scope a, struct ui_scope b)
{
	return a.layer == b.layer && a.cls == b.cls && a.group == b.group && a.part == b.part;
}

/* A view: its table, its private state and what Enter does, all declared here; the explorer
 * (explorer.c, explorer_draw.c) has no code for any one view. */
struct ui_view_def {
	const char *name; /* on its tab: "Pairs" */
	const char *what; /* its rows, in a sentence: "kernel pairs" */
	/* Columns, cells, sort keys, groups and quick filters; the callbacks get the struct
	 * ui_view as ctx. */
	struct table_def table;
	unsigned quick_bits; /* the quick filters table.quick answers (QUICK_FUSIONS, ...) */
	size_t state_size;   /* the view's private state (v->state): zeroed when the view opens */
	/* (Re)build the rows (v->n_rows, the state) from v->u->c and v->scope; release frees
	 * what build made, leaving the state as zeroed. */
	void (*build)(struct ui_view *v);
	void (*release)(struct ui_view *v);
	/* The evidence of row, for a pane width cells wide. */
	void (*evidence)(struct ui_view *v, uint32_t row, struct ui_text *out, int width);
	/* Enter on a row opens drill_view with the scope drill_scope() gives; VIEW_COUNT: Enter
	 * focuses the evidence. */
	int drill_view;
	struct ui_scope (*drill_scope)(const struct ui_view *v, uint32_t row);
	/* Short description of v->scope for the breadcrumbs ("layer 3"), "" when none; NULL:
	 * the view is never scoped. */
	void (*describe_scope)(struct ui_view *v, char *buf, size_t cap);
	/* Export (e): the rows are written as the CSV report's table csv_table (enum
	 * report_csv_table) writes them; csv_item gives the item of a row (an index into that
	 * table), UINT32_MAX for a row that continues the previous one. */
	int csv_table;
	uint32_t (*csv_item)(const struct ui_view *v, uint32_t row);
	/* Optional: Enter on row does this instead of the drill-down (1 when it did something). */
	int (*enter)(struct ui_view *v, uint32_t row);
	/* What the status line says Enter does ("pairs"); NULL: "evidence" (it focuses the
	 * evidence). */
	const char *enter_hint;
	/* Optional: Enter in the evidence pane of row follows it into another view (ui_goto());
	 * nothing when NULL. */
	void (*follow)(struct ui_view *v, uint32_t row);
	/* Optional: whether the view has its tab in the comparison shown (NULL: always); absent
	 * is the message its key gives when it has none. */
	int (*shown)(const struct ui *u);
	const char *absent;
	/* The table's text when the view has no row at all; NULL: "no <what> in this phase". */
	const char *empty;
	/* Optional: what a new comparison (another phase, rank or device) does to the view's
	 * selection: STALE_KEEP keeps the selected row (its rows are the same things in every
	 * comparison); STALE_RESET (and NULL) goes back to the first row. */
	int (*on_comparison)(const struct ui_view *v);
	/* Optional: what the default name of an export (e) of the view says after the view's
	 * name, for its scope: "-layer3" in "fusediff-Pairs-layer3-prefill.csv"; none when NULL. */
	void (*export_name)(const struct ui_view *v, char *buf, size_t cap);
	/* Optional: the layer (index into c->layers) and pair (UINT32_MAX: none) the timeline
	 * (t) of row shows; 0 when the row has none. */
	int (*timeline)(const struct ui_view *v, uint32_t row, int32_t *layer, uint32_t *pair);
	/* Optional: what the trace for Perfetto (P) of row holds: one layer (index into
	 * c->layers) or one fusion (index into c->fusions), -1 for the other; 0: the view's
	 * scope decides (its layer, else everything). */
	int (*perfetto)(const struct ui_view *v, uint32_t row, int32_t *layer, int32_t *fusion);
	/* Optional: the kernels of row on side (SIDE_A, SIDE_B) that y copies, as name ids
	 * (*names borrowed, *n of them); 0 when the side has none there. */
	int (*kernel_of)(const struct ui_view *v, uint32_t row, int side, const uint32_t **names,
			 uint32_t *n);
};

/* The timeline of one layer (timeline.c). */
#define UI_TL_PASSES 64
struct ui_tl_kernel {
	uint32_t kernel; /* index into the side's trace->kernels */
	uint32_t pair;	 /* the pair it belongs to */
	uint8_t cls;	 /* the pair's class (an eager RMSNorm run is Norm) */
	uint8_t marked;	 /* of the selected pair or its fusion */
};
struct ui_timeline {
	int open;
	int32_t layer;
	uint32_t pair;			/* selected, UINT32_MAX: none */
	uint32_t pass[2][UI_TL_PASSES]; /* the compared passes that have the layer */
	uint32_t n_pass[2], at[2];	/* how many; the one shown */
	struct ui_tl_kernel *k[2];	/* the layer's kernels in that pass, by start */
	size_t n[2];
	int64_t t0[2], wall[2], span; /* each side's first start and wall; the longer */
	double zoom;		      /* 1: the longer side fits the width */
	int64_t offset;		      /* ns from each side's start at the left edge */
	int list_top;
};
void ui_timeline_open(struct ui *u, int32_t layer, uint32_t pair);
void ui_timeline_close(struct ui *u);
void ui_timeline_key(struct ui *u, int key);
void ui_timeline_draw(struct ui *u);

/* Whether column col of t is offered for sorting (the picker, < and >): sortable and on the
 * screen at its width. */
int ui_sort_offered(const struct ui *u, const struct table *t, int col);

/* The help's lines (popups.c): every action, its keys, name and help wrapped to the
 * screen's width, then the words. */
void ui_help_text(struct ui *u, struct ui_text *out);

/* csv_item for views whose row r is item r of their table. */
uint32_t ui_row_is_item(const struct ui_view *v, uint32_t row);

struct ui_view {
	const struct ui_view_def *def;
	struct ui *u;
	struct table t;
	int built;
	int stale; /* to be rebuilt before it is shown (names or comparison changed while another
		      view was shown): STALE_KEEP its selection, STALE_RESET to its first row */
	uint32_t n_rows;
	struct ui_scope scope; /* what it shows */
	void *state;	       /* def->state_size bytes, the view's own */
};

enum { STALE_NO, STALE_KEEP, STALE_RESET };

/* explorer.c: the view shown, rebuilt first when it is stale. */
struct ui_view *ui_shown_view(struct ui *u);

/* The view the explorer opens on. */
#define UI_FIRST_VIEW VIEW_OVERVIEW

/* The views' definitions (views/), one per line of UI_VIEW_LIST (ui_actions.h). */
#define UI_VIEW_DEF_DECL(id, name, key, help) extern const struct ui_view_def ui_view_##name;
UI_VIEW_LIST(UI_VIEW_DEF_DECL)
#undef UI_VIEW_DEF_DECL

/* explorer.c: whether view has its tab in the comparison shown (ui_view_def.shown). */
int ui_view_shown(const struct ui *u, int view);

/* explorer_switch.c: show rank index of c->ranks in every view (Enter in the Ranks view).
 * Returns 1. */
int ui_open_rank(struct ui *u, uint32_t index);

/* A pair's kind as shown ("match", "A fuses", "B only", ...) and its colour role. */
const char *ui_pair_kind_text(const struct comparison *c, const struct comparison_pair *p);
int ui_pair_kind_role(const struct comparison_pair *p);
/* Does the pair pass the quick filters in mask (QUICK_FUSIONS, QUICK_MISMATCHES)? */
int ui_pair_quick(const struct comparison_pair *p, unsigned mask);

/* Where we came from, for back: the view, the scope the drill-down's target had, the row. */
struct ui_nav {
	int view;
	int target;
	struct ui_scope target_scope;
	uint32_t sel;
};

enum prompt_kind {
	PROMPT_NONE,
	PROMPT_SEARCH,
	PROMPT_FILTER,
	PROMPT_EXPORT,
	PROMPT_OVERWRITE,
	PROMPT_COPY /* y: which side's names */
};

/* Where the comparisons come from (explorer_switch.c). */
struct ui_source {
	struct session *session; /* NULL: c is the only comparison */
	int owns; /* session was opened by open_rank or open_device: closed when left */
	ui_rank_opener open_rank; /* NULL: no other rank can be opened */
	void *open_rank_user;
	ui_device_opener open_device; /* NULL: the traces cannot be reopened */
	void *open_device_user;
};

/* Where we came from (explorer.c): back (Esc) pops the last. */
struct ui_history {
	struct ui_nav nav[16];
	int depth;
};

/* The evidence pane: its size and focus (explorer.c), the text shown (explorer_draw.c),
 * cached until the selection, names or width change. */
struct ui_evidence {
	int size;  /* EVIDENCE_SMALL, ... */
	int focus; /* the keys scroll it */
	struct ui_text text;
	int valid, view, names, width; /* what text was made for */
	uint32_t row;
	uint32_t top; /* the first line shown */
	int hscroll;
};

/* The kernel names (format.c, explorer_switch.c): the form shown and, per side, name id ->
 * index into classes.infos, UINT32_MAX when none. */
struct ui_names {
	int form; /* NAMES_SHORT, ... */
	uint32_t *info[2];
	uint32_t n_info[2];
};

/* The prompt on the status line and its line editor (prompt.c). */
struct ui_prompt {
	int kind; /* enum prompt_kind: PROMPT_NONE when none is open */
	char input[512];
	char search[512]; /* what n and N look for */
};

/* The exports (export.c). */
struct ui_export {
	const struct file_set *reads; /* what an export must not replace (NULL: the traces) */
	char *path;
	int trace;	       /* the export prompt is P's (a trace for Perfetto), not e's */
	int32_t layer, fusion; /* what P's trace holds (-1: no one layer, fusion) */
};

/* What opens over the views (popups.c): the sort column picker, the help, the warnings. */
struct ui_popups {
	int picker, picker_sel; /* open; the column selected */
	int help, help_top;	/* open; its first line shown */
	int warnings, warnings_top;
};

/* The status line's message (ui_set_message()). */
struct ui_message {
	char text[512];
	int role;
};

/* What the mouse needs of the last drawing. */
struct ui_mouse_map {
	int tab_x[VIEW_COUNT + 1]; /* where the view names were drawn */
};

struct ui {
	struct ui_screen *s;
	struct ui_source src;
	const struct comparison *c; /* the phase shown */
	struct ui_view views[VIEW_COUNT];
	int view;
	struct ui_history hist;
	struct ui_layout layout;
	struct ui_evidence ev;
	struct ui_names names;
	struct ui_prompt prompt;
	struct ui_export export;
	struct ui_popups pop;
	struct ui_timeline tl; /* open over the views when tl.open */
	struct ui_message msg;
	struct ui_mouse_map mouse;
};

/* views/summed.c: the comparison's pairs summed over the layers (comparison.summed).
 * Borrowed: valid until the phase changes. */
const struct summed_pair *ui_groups(struct ui *u, size_t *n);

/* format.c */
void fmt_us(char *buf, size_t cap, double ns);	  /* "12.3", "-" for NAN */
void fmt_delta(char *buf, size_t cap, double ns); /* "+12.3", "-4.56", "0" */
void fmt_ratio(char *buf, size_t cap, double r);  /* "0.44", "-" for NAN */
void fmt_count(char *buf, size_t cap, double n);  /* "8", "0.5" */
/* Achieved TFLOPS and the share of the peak of a pair's side: "573 58%", "0.02 1%", "41" (no
 * peak), "" when unknown (efficiency.h). */
void fmt_eff(char *buf, size_t cap, const struct comparison_eff *e);
/* Its sort key: the peak share, else the TFLOPS / 1e6 (after every share), NAN when unknown. */
double eff_key(const struct comparison_eff *e);
int delta_role(double delta_ns);
/* The same, dimmed when the row is within the pass-to-pass noise (its interval holds 0). */
int delta_role_ci(double delta_ns, const struct comparison_ci *ci);
/* The sort key of B/A: the ratio, +infinity for work only B does (A is 0), NAN when neither
 * does any (sorted last). */
double ratio_key(double a, double b);
/* A part of the attribution of B - A as a short text: "fusion #1 Norm", "A only Copy". */
void ui_part_label(const struct comparison *c, size_t part, char *buf, size_t cap);
/* The name of kernel name id on side in the current form (borrowed); the short form of an
 * Inductor kernel is its ops (kernel_info.ops_name), for table columns. */
const char *ui_name(const struct ui *u, int side, uint32_t name);
/* The same but never the ops form: the names written out whole in an evidence pane. */
const char *ui_name_full(const struct ui *u, int side, uint32_t name);
/* names[0..n) of side joined with " + ", after "N kernels: " when there are several, into buf
 * (cut at cap, as snprintf() cuts); returns the length of the whole text, as snprintf(). */
size_t ui_names_join(const struct ui *u, int side, const uint32_t *names, uint32_t n, char *buf,
		     size_t cap);
/* One side of a pair in a line of text, escaped: its kernel's name, "9 kernels: the first's +
 * …" for a run (so that it never reads as one kernel), "-" for none. Owned by caller. */
char *ui_part_names(const struct ui *u, const struct comparison_pair *p, int side);
/* The names (as shown and as in the trace) of the kernels of pairs first..first+n-1 (both
 * sides, each once, one per line), only those whose part[i] is want when part is not NULL:
 * what / and f search in a row that holds pairs. Owned by caller. */
char *ui_pair_names(const struct ui *u, uint32_t first, uint32_t n, const uint32_t *part,
		    uint32_t want);
/* The kernel_info of a name id on side, or NULL. */
const struct kernel_info *ui_name_info(const struct ui *u, int side, uint32_t name);
/* export.c, the explorer's P: what the trace of view v's selection holds (into
 * u->export.layer, u->export.fusion), its default file name (owned by the caller: free()),
 * and writing it to path, with a message either way. */
void ui_trace_scope(struct ui *u, const struct ui_view *v);
char *ui_trace_default_path(const struct ui *u);
void ui_trace_write(struct ui *u, const char *path);
/* export.c, the explorer's e: the default file name of the shown view's CSV
 * ("fusediff-Pairs-layer3-prefill.csv"; owned by the caller: free()), and writing its rows
 * to path, with a message either way. */
char *ui_export_default_path(struct ui *u);
void ui_export_csv(struct ui *u, const char *path);
/* export.c: the path typed at the export prompt (input; "~/" is $HOME): never a compared
 * trace, a file the run reads or anything but a regular file; asks before replacing a file
 * (PROMPT_OVERWRITE), else writes the export (ui_export_write()). */
void ui_export_to(struct ui *u, const char *input);
/* export.c: write the export the prompt asked for (CSV, or P's trace) to u->export_path. */
void ui_export_write(struct ui *u);
/* export.c, y: ask whose names to copy (PROMPT_COPY), or say the row has no kernel; then
 * copy the names of side which (SIDE_A, SIDE_B; -1: both) to the clipboard. */
void ui_copy_start(struct ui *u);
void ui_copy_names(struct ui *u, int which);

/* prompt.c: open prompt kind (enum prompt_kind) with initial text (NULL: none); the keys
 * while one is open; search the shown table for u->search (dir 1: down, -1: up); filter it
 * by text (NULL: none) and the quick filters quick. Each says what it did in the message. */
void ui_prompt_open(struct ui *u, int kind, const char *initial);
void ui_prompt_key(struct ui *u, int key);
void ui_search(struct ui *u, int dir);
void ui_filter(struct ui *u, const char *text, unsigned quick);

/* explorer_switch.c: the name id -> kernel_info maps of u->c's sides (u->names.info); the next
 * phase (p) and device (d); the name form names (NAMES_SHORT, ...) in every view. */
void ui_name_maps_build(struct ui *u);
void ui_next_phase(struct ui *u);
void ui_next_device(struct ui *u);
void ui_set_names(struct ui *u, int names);

/* popups.c: the next sortable column after (dir 1) or before (dir -1) col, wrapping (shown:
 * only those on the screen), -1 when none; the message that says the shown table's order;
 * the keys of the sort picker, the help and the warnings popup. */
int ui_next_sort_col(const struct ui *u, const struct table *t, int col, int dir, int shown);
void ui_sort_message(struct ui *u);
void ui_picker_key(struct ui *u, int key);
void ui_help_key(struct ui *u, int key);
void ui_warnings_key(struct ui *u, int key);
/* popups.c: draw the sort picker, the help (in place of the views) and the warnings popup. */
void ui_draw_picker(struct ui *u);
void ui_draw_help(struct ui *u);
void ui_draw_warnings(struct ui *u);

void ui_set_message(struct ui *u, int role, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* evidence.c: the instances of one side of a pair as lines. */
void ui_evidence_instances(struct ui *u, struct ui_text *out, const struct comparison_pair *p,
			   int side, size_t *budget);
/* How close a side runs to its GPU's peak (efficiency.h): its work, achieved TFLOPS and TB/s,
 * and the share of pk's roofline; nothing when its work is not known. cls: the pair's class
 * (enum op_class). */
void ui_evidence_eff(struct ui_text *out, const struct comparison_eff *e, const struct gpu_peak *pk,
		     int cls);
void ui_evidence_pair(struct ui *u, struct ui_text *out, uint32_t pair, int width);

/* explorer.c: open view with a scope, remembering where we were (Esc comes back). */
void ui_goto(struct ui *u, int view, struct ui_scope scope);
/* Compute the layout for the screen's size, the evidence size and the current table. */
void ui_relayout(struct ui *u);
/* Rebuild a view (after a scope, phase or names change), keeping its sort and filters. */
void ui_view_rebuild(struct ui_view *v);

#endif
