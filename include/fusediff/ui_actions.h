/* ui_actions.h — every action of the explorer, declared once: its name, default keys and help
 * text. The key map, the ? help screen, the man page's KEYS section and the key names that
 * --headless scripts accept all come from this one table.
 *
 * Keys are Unicode code points (Ctrl-X is 0x18) or one of the UI_KEY_* codes below, so that
 * nothing outside the screen module needs curses. */
#ifndef FUSEDIFF_UI_ACTIONS_H
#define FUSEDIFF_UI_ACTIONS_H

#include <stddef.h>
#include <stdio.h>

enum ui_keycode {
	UI_KEY_NONE = -1,
	UI_KEY_BASE = 0x200000, /* above every code point */
	UI_KEY_UP,
	UI_KEY_DOWN,
	UI_KEY_LEFT,
	UI_KEY_RIGHT,
	UI_KEY_PGUP,
	UI_KEY_PGDN,
	UI_KEY_HOME,
	UI_KEY_END,
	UI_KEY_ENTER,
	UI_KEY_ESC,
	UI_KEY_BACKSPACE,
	UI_KEY_DELETE,
	UI_KEY_TAB,
	UI_KEY_BTAB,
	UI_KEY_RESIZE,
	UI_KEY_MOUSE,
	UI_KEY_F1,
	UI_KEY_F12 = UI_KEY_F1 + 11,
};

/* The explorer's views in tab order, one line each: X(ID, name, key, help) declares the view
 * VIEW_ID (ui_explorer.h), which src/ui/views/ defines as `const struct ui_view_def
 * ui_view_<name>`, and the action ACT_VIEW_ID that shows it: named name in scripts, bound to
 * key, described by help. A new view is its file in src/ui/views/ plus one line here. */
/* clang-format off */
#define UI_VIEW_LIST(X) \
	X(OVERVIEW, overview, "1", "Overview: where B - A comes from, part by part") \
	X(LAYERS, layers, "2", "Layers: one row per layer, prologue and epilogue") \
	X(PAIRS, pairs, "3", "Kernel pairs: A and B side by side in alignment order") \
	X(FUSIONS, fusions, "4", "Fusions: one row per fusion pattern") \
	X(SUMMED, summed, "5", "Summed: kernel pairs summed over the layers, largest difference first") \
	X(TOTALS, totals, "6", "Totals: every kernel of the whole traces by name and class, A against B") \
	X(RANKS, ranks, "7", "Ranks: per-rank totals of two directories of ranks")
/* clang-format on */

/* Every action, in help order, declared once: A(ID, name, keys, help, group, hint, hint_at,
 * hint_keys) makes ACT_ID and its line of ui_actions[] (the fields of struct ui_action_def);
 * the views' actions, ACT_VIEW_ID, come from UI_VIEW_LIST through V. */
/* clang-format off */
#define UI_ACTION_LIST(A, V) \
	A(UP, "up", "k Up", "move the selection up", "Moving", NULL, 0, NULL) \
	A(DOWN, "down", "j Down", "move the selection down", NULL, NULL, 0, NULL) \
	A(PAGE_UP, "page-up", "PgUp C-b", "one page up", NULL, NULL, 0, NULL) \
	A(PAGE_DOWN, "page-down", "PgDn C-f Space", "one page down", NULL, NULL, 0, NULL) \
	A(TOP, "top", "g Home", "first row", NULL, NULL, 0, NULL) \
	A(BOTTOM, "bottom", "G End", "last row", NULL, NULL, 0, NULL) \
	A(LEFT, "left", "h Left", "scroll long names back left (to the left edge, no further)", NULL, NULL, 0, NULL) \
	A(RIGHT, "right", "l Right", "scroll long names right", NULL, NULL, 0, NULL) \
	A(ENTER, "enter", "Enter", "drill down: layer, part, fusion or summed row to its pairs; pair to evidence", NULL, "drill down", 3, NULL) \
	A(BACK, "back", "Esc Backspace", "go back, keeping the selection there", NULL, "back", 4, NULL) \
	A(VIEW_NEXT, "next-view", "Tab", "next view", "Views", "views", 2, "Tab/1-6") \
	A(VIEW_PREV, "prev-view", "S-Tab", "previous view", NULL, NULL, 0, NULL) \
	UI_VIEW_LIST(V) \
	A(PHASE, "phase", "p", "show the next phase: prefill, decode, all passes", NULL, "phase", 9, NULL) \
	A(DEVICE, "device", "d", "next GPU on both sides, then all GPUs as one (reads the traces again)", NULL, NULL, 0, NULL) \
	A(WARNINGS, "warnings", "w", "every warning in full: what makes the figures less comparable than they look", NULL, NULL, 0, NULL) \
	A(EVIDENCE, "evidence", "v", "evidence pane: small, large, hidden", NULL, NULL, 0, NULL) \
	A(FOCUS_EVIDENCE, "focus-evidence", "o", "into the evidence pane, to scroll it (Esc: back)", NULL, NULL, 0, NULL) \
	A(NAMES, "names", "m", "kernel names: short, demangled, as in the trace", NULL, NULL, 0, NULL) \
	A(NAMES_WIDER, "wider", "+", "widen the name columns (other columns give way)", NULL, NULL, 0, NULL) \
	A(NAMES_NARROWER, "narrower", "-", "narrow the name columns", NULL, NULL, 0, NULL) \
	A(TIMELINE, "timeline", "t", "timeline of the selected row's layer: A and B to scale", NULL, NULL, 0, NULL) \
	A(COPY, "copy", "y", "copy the row's kernel names (A's, B's or both) to the clipboard (OSC 52)", NULL, NULL, 0, NULL) \
	A(SORT, "sort", "s F6", "choose the column to sort by", "Tables", "sort", 5, NULL) \
	A(SORT_LEFT, "sort-left", "<", "sort by the column to the left", NULL, NULL, 0, NULL) \
	A(SORT_RIGHT, "sort-right", ">", "sort by the column to the right", NULL, NULL, 0, NULL) \
	A(REVERSE, "reverse", "r", "reverse the sort order", NULL, NULL, 0, NULL) \
	A(SEARCH, "search", "/", "search kernel names", NULL, "search", 6, NULL) \
	A(SEARCH_NEXT, "search-next", "n", "next match", NULL, NULL, 0, NULL) \
	A(SEARCH_PREV, "search-prev", "N", "previous match", NULL, NULL, 0, NULL) \
	A(FILTER, "filter", "f", "show only rows whose names contain a text", NULL, "filter", 7, NULL) \
	A(ONLY_FUSIONS, "only-fusions", "F", "show only rows with a fusion difference", NULL, "fusions", 8, NULL) \
	A(ONLY_MISMATCHES, "only-mismatches", "x", "show only rows that are not plain matches", NULL, NULL, 0, NULL) \
	A(CLEAR_FILTER, "clear-filter", "c", "remove every filter", NULL, NULL, 0, NULL) \
	A(EXPORT, "export", "e", "write its rows as --report csv does (asks before overwriting)", NULL, "export", 10, NULL) \
	A(PERFETTO, "perfetto", "P", "write a trace for Perfetto: the selected layer or fusion, else everything", NULL, NULL, 0, NULL) \
	A(HELP, "help", "? F1", "this help", "Other", "help", 1, NULL) \
	A(REDRAW, "redraw", "C-l", "redraw the screen", NULL, NULL, 0, NULL) \
	A(QUIT, "quit", "q", "go back, or quit at the top level", NULL, "quit", 11, NULL) \
	A(QUIT_NOW, "quit-now", "Q", "quit", NULL, NULL, 0, NULL)

enum ui_action {
	ACT_NONE,
#define UI_ACTION_ID(id, name, keys, help, group, hint, hint_at, hint_keys) ACT_##id,
#define UI_VIEW_ACTION_ID(id, name, key, help) ACT_VIEW_##id,
	UI_ACTION_LIST(UI_ACTION_ID, UI_VIEW_ACTION_ID)
#undef UI_ACTION_ID
#undef UI_VIEW_ACTION_ID
	ACT_COUNT
};
/* clang-format on */

struct ui_action_def {
	enum ui_action action;
	const char *name;  /* script and documentation name: "page-down" */
	const char *keys;  /* default keys, space-separated key names: "PgDn C-f" */
	const char *help;  /* one line for the help screen and the man page */
	const char *group; /* starts a group in the help screen, or NULL */
	/* On the status line when nothing else is shown, at position hint_at (1, 2, ...):
	 * "keys:hint", the keys being hint_keys, else the first of keys. NULL: not there. */
	const char *hint, *hint_keys;
	int hint_at;
};

/* The table, in help order; ui_actions[i].action == i + 1. */
extern const struct ui_action_def ui_actions[ACT_COUNT - 1];

/* The definition of an action (borrowed), or NULL for ACT_NONE and out-of-range values. */
const struct ui_action_def *ui_action_def(enum ui_action a);
/* The status line's key hints ("Enter:drill down  Esc:back  ...") into buf (cap bytes, cut
 * when short). Returns the length the whole text needs. */
size_t ui_actions_hints(char *buf, size_t cap);
/* The action with this name ("down"), or ACT_NONE. */
enum ui_action ui_action_from_name(const char *name);
/* The action bound to key, or ACT_NONE. */
enum ui_action ui_action_for_key(int key);

/* The key with this name: "Enter", "Esc", "Tab", "S-Tab", "Up", "Down", "Left", "Right",
 * "PgUp", "PgDn", "Home", "End", "Backspace", "Delete", "Space", "F1".."F12", "C-a".."C-z",
 * or one character (UTF-8). Returns UI_KEY_NONE for anything else. */
int ui_key_from_name(const char *name);
/* The name of a key as ui_key_from_name() reads it, into buf (cap bytes). Returns buf. */
char *ui_key_name(int key, char *buf, size_t cap);

/* Write the KEYS section of the man page (mdoc) from the table. Returns 0, or -1 when
 * writing fails. */
int ui_actions_write_mdoc(FILE *f);

#endif
