/* ui_explorer.h — the interactive explorer of a comparison: the header, the views
 * (UI_VIEW_LIST: Overview, Layers, Pairs, Fusions, ...) built on the generic table, the
 * evidence pane, drill-down and back, prompts, help and CSV export; the loading screen; and
 * the script player of --headless mode. */
#ifndef FUSEDIFF_UI_EXPLORER_H
#define FUSEDIFF_UI_EXPLORER_H

#include <stdint.h>
#include <stdio.h>

#include "fusediff/comparison.h"
#include "fusediff/session.h"
#include "fusediff/ui_actions.h"
#include "fusediff/ui_screen.h"

struct ui;

/* The views in tab order, from UI_VIEW_LIST (ui_actions.h). VIEW_RANKS has its tab only when
 * directories of ranks are compared (comparison.ranks). */
/* clang-format off */
enum ui_view_id {
#define UI_VIEW_ID(id, name, key, help) VIEW_##id,
	UI_VIEW_LIST(UI_VIEW_ID)
#undef UI_VIEW_ID
	VIEW_COUNT
};
/* clang-format on */

/* An explorer of the comparisons of session (borrowed), starting with phase (as in
 * session_compare(), which must have succeeded for it), drawn on screen s (borrowed). The
 * phase key asks the session for another phase's comparison. Starts on the Overview.
 * Owned by caller: free with ui_free(). */
struct ui *ui_new(struct ui_screen *s, struct session *session, int phase);
/* An explorer of one comparison c (borrowed), made without a session (tests, benchmarks): the
 * phase key says there is no other phase. */
struct ui *ui_new_comparison(struct ui_screen *s, const struct comparison *c);
void ui_free(struct ui *u);

/* Open the session of rank index (into comparison.ranks->r) for Enter in the Ranks view, with
 * that rank as the ranks' chosen one; NULL with a message in err. */
typedef struct session *(*ui_rank_opener)(void *user, size_t index, struct fd_error *err);
/* Let Enter in the Ranks view open another rank through fn. The explorer owns the sessions fn
 * opens and closes each when it leaves it (never the one it was made with). */
void ui_set_rank_opener(struct ui *u, ui_rank_opener fn, void *user);

/* Open the same traces analysed on another device (a device id, or TRACE_ALL_DEVICES: all as
 * one timeline) for the device key; NULL with a message in err. */
typedef struct session *(*ui_device_opener)(void *user, int32_t device, struct fd_error *err);
/* Let the device key reopen the traces on another device through fn; the explorer owns the
 * sessions fn opens, as those of ui_set_rank_opener(). */
void ui_set_device_opener(struct ui *u, ui_device_opener fn, void *user);

/* The files the run reads (borrowed, must outlive u): an export never replaces one of them,
 * nor a compared trace. */
void ui_set_inputs(struct ui *u, const struct file_set *reads);

/* Handle one event (a key, a mouse event or UI_KEY_RESIZE). Returns 1 when the explorer
 * should quit, else 0. */
int ui_handle(struct ui *u, const struct ui_event *ev);
/* Handle a key given by code (a convenience for tests and scripts). */
int ui_key(struct ui *u, int key);
/* Draw the whole screen (not flushed). */
void ui_draw(struct ui *u);
/* The status message shown now (borrowed), "" when none. */
const char *ui_message(const struct ui *u);
enum ui_view_id ui_view(const struct ui *u);

/* Run the interactive loop until quit or a terminating signal. Returns the exit status
 * (0, or 128 + the signal number). */
int ui_run(struct ui *u);

/* Play a --headless script: one key per line (an action name from ui_actions.h, a key name
 * or one character), '#' comments, and the commands ':dump NAME' (write the screen to
 * DIR/NAME.screen, DIR being dump_dir, or the current directory when it is NULL or "": the
 * program passes $FUSEDIFF_DUMP_DIR), ':resize COLSxROWS',
 * ':type TEXT' (type each character), ':click X Y', ':double X Y', ':wheel up|down X Y' and
 * ':bench N KEY' (press KEY N times, redrawing each time, and write the time per key to out).
 * Without a script the screen is written to out. Returns the exit status: 0, or 1 with a message in err for a
 * bad script (naming the line). */
int ui_play(struct ui *u, const char *script, const char *dump_dir, FILE *out,
	    struct fd_error *err);

/* Progress of loading two traces, shared between the loader threads and the loading screen. */
struct ui_progress;
/* A progress record for traces named name_a and name_b (borrowed). Owned by caller: free
 * with ui_progress_free(). */
struct ui_progress *ui_progress_new(const char *name_a, const char *name_b);
void ui_progress_free(struct ui_progress *p);
/* Record bytes read (done) of total (-1: unknown) for side 0 or 1; safe from any thread.
 * Returns nonzero when the user cancelled. */
int ui_progress_update(struct ui_progress *p, int side, int64_t done, int64_t total);
/* What runs after a side's file is read (UI_STAGE_*), for side 0 or 1, or -1 for both; the
 * screen names it (a side whose bytes are all read and no stage said is "finishing"). Safe
 * from any thread. */
enum ui_stage { UI_STAGE_READING, UI_STAGE_LOADED, UI_STAGE_ANALYSING, UI_STAGE_ALIGNING };
void ui_progress_stage(struct ui_progress *p, int side, enum ui_stage stage);

/* Run job(user) on a second thread while drawing the progress on screen s; q or Ctrl-C (and
 * SIGINT/SIGTERM/SIGHUP) cancel it, which job sees through ui_progress_update(). Returns the
 * job's return value, and sets *cancelled to the reason (0: not cancelled, 'q', or the signal
 * number). After a cancel the job may still be running (a read that never returns): the
 * caller must then leave user and p alone and exit. Headless: runs job directly. */
int ui_loading(struct ui_screen *s, struct ui_progress *p, int (*job)(void *user), void *user,
	       int *cancelled);

/* The explorer's words (per pass, places, fused, horizontal fusion, ...), one line each, as the
 * help lists them after the keys. */
extern const char *const ui_glossary[];
extern const size_t ui_glossary_n;

#endif
