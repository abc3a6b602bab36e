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

enum ui_action {
	ACT_NONE,
	/* moving */
	ACT_UP,
	ACT_DOWN,
	ACT_PAGE_UP,
	ACT_PAGE_DOWN,
	ACT_TOP,
	ACT_BOTTOM,
	ACT_LEFT,
	ACT_RIGHT,
	ACT_ENTER,
	ACT_BACK,
	/* views */
	ACT_VIEW_NEXT,
	ACT_VIEW_PREV,
#define UI_VIEW_ACTION_ID(id, name, key, help) ACT_VIEW_##id,
	UI_VIEW_LIST(UI_VIEW_ACTION_ID)
#undef UI_VIEW_ACTION_ID
		ACT_PHASE,
	ACT_DEVICE,
	ACT_WARNINGS,
	ACT_EVIDENCE,
	ACT_FOCUS_EVIDENCE,
	ACT_NAMES,
	ACT_NAMES_WIDER,
	ACT_NAMES_NARROWER,
	ACT_TIMELINE,
	ACT_COPY,
	/* tables */
	ACT_SORT,
	ACT_SORT_LEFT,
	ACT_SORT_RIGHT,
	ACT_REVERSE,
	ACT_SEARCH,
	ACT_SEARCH_NEXT,
	ACT_SEARCH_PREV,
	ACT_FILTER,
	ACT_ONLY_FUSIONS,
	ACT_ONLY_MISMATCHES,
	ACT_CLEAR_FILTER,
	ACT_EXPORT,
	ACT_PERFETTO,
	/* other */
	ACT_HELP,
	ACT_REDRAW,
	ACT_QUIT,
	ACT_QUIT_NOW,
	ACT_COUNT
};

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
