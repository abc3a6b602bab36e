/* prompt.c — the explorer's prompts on the status line and their line editor: search (/, n,
 * N), filter (f), the export path (e, P), the overwrite question and the copy choice (y). */
#include <stdlib.h>
#include <string.h>

#include "explorer_int.h"
#include "fusediff/text.h"

void ui_filter(struct ui *u, const char *text, unsigned quick)
{
	struct table *t = &ui_shown_view(u)->t;
	uint32_t index, shown;

	table_filter(t, text, quick);
	u->ev.valid = 0;
	table_position(t, &index, &shown); /* rows as the tab line counts them: groups */
	if (!t->filter && !t->quick)
		ui_set_message(u, ROLE_NORMAL, "no filter: %u rows", shown);
	else
		ui_set_message(u, t->n_view ? ROLE_NORMAL : ROLE_ERROR, "%u of %u rows shown%s",
			       shown, table_groups(t), t->n_view ? "" : " (c clears the filter)");
}

void ui_search(struct ui *u, int dir)
{
	if (!u->prompt.search[0]) {
		ui_set_message(u, ROLE_NORMAL, "nothing to search for: press / first");
		return;
	}
	struct table *t = &ui_shown_view(u)->t;
	uint32_t before = t->sel_pos, k, n;

	if (table_search(t, u->prompt.search, dir) < 0) {
		ui_set_message(u, ROLE_ERROR, "not found: %s", u->prompt.search);
	} else {
		int wrapped = dir >= 0 ? t->sel_pos <= before : t->sel_pos >= before;

		table_search_count(t, u->prompt.search, &k, &n);
		ui_set_message(u, ROLE_NORMAL, "/%s: match %u of %u%s", u->prompt.search, k, n,
			       !wrapped || n < 2 ? ""
			       : dir >= 0	 ? " (wrapped to the top)"
						 : " (wrapped to the bottom)");
	}
	u->ev.valid = 0;
}

void ui_prompt_open(struct ui *u, int kind, const char *initial)
{
	u->prompt.kind = kind;
	snprintf(u->prompt.input, sizeof u->prompt.input, "%s", initial ? initial : "");
	u->msg.text[0] = '\0';
}

static void input_add(struct ui *u, int cp)
{
	size_t len = strlen(u->prompt.input);
	char enc[4];
	size_t n = text_utf8_encode((uint32_t)cp, enc);

	if (len + n < sizeof u->prompt.input) {
		memcpy(u->prompt.input + len, enc, n);
		u->prompt.input[len + n] = '\0';
	}
}

static void input_backspace(struct ui *u)
{
	size_t len = strlen(u->prompt.input);

	while (len > 0 && ((unsigned char)u->prompt.input[len - 1] & 0xc0) == 0x80)
		len--;
	if (len > 0)
		len--;
	u->prompt.input[len] = '\0';
}

static void prompt_accept(struct ui *u)
{
	int kind = u->prompt.kind;

	u->prompt.kind = PROMPT_NONE;
	switch (kind) {
	case PROMPT_SEARCH:
		snprintf(u->prompt.search, sizeof u->prompt.search, "%s", u->prompt.input);
		ui_search(u, 1);
		break;
	case PROMPT_FILTER: ui_filter(u, u->prompt.input, ui_shown_view(u)->t.quick); break;
	case PROMPT_EXPORT: ui_export_to(u, u->prompt.input); break;
	default: break;
	}
}

void ui_prompt_key(struct ui *u, int key)
{
	if (u->prompt.kind == PROMPT_COPY) { /* a, b or Enter for both */
		u->prompt.kind = PROMPT_NONE;
		if (key == 'a' || key == 'A')
			ui_copy_names(u, SIDE_A);
		else if (key == 'b' || key == 'B')
			ui_copy_names(u, SIDE_B);
		else if (key == UI_KEY_ENTER)
			ui_copy_names(u, -1);
		else
			ui_set_message(u, ROLE_NORMAL, "nothing copied");
		return;
	}
	if (u->prompt.kind == PROMPT_OVERWRITE) {
		u->prompt.kind = PROMPT_NONE;
		if (key == 'y' || key == 'Y')
			ui_export_write(u);
		else
			ui_set_message(u, ROLE_NORMAL, "not exported: %s exists", u->export.path);
		return;
	}
	switch (key) {
	case UI_KEY_ENTER: prompt_accept(u); break;
	case UI_KEY_ESC:
	case 3: /* C-c */
		u->prompt.kind = PROMPT_NONE;
		ui_set_message(u, ROLE_NORMAL, "cancelled");
		break;
	case UI_KEY_BACKSPACE: input_backspace(u); break;
	case 21: /* C-u */ u->prompt.input[0] = '\0'; break;
	default:
		if (key >= 0x20 && key < 0x110000 && key != 0x7f)
			input_add(u, key);
		break;
	}
}
