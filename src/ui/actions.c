/* actions.c — the action table and key names (see ui_actions.h). */
#include "fusediff/ui_actions.h"

#include "fusediff/text.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>

/* The table, from UI_ACTION_LIST (ui_actions.h). */
/* clang-format off */
const struct ui_action_def ui_actions[ACT_COUNT - 1] = {
#define ACTION(id, name, keys, help, group, hint, hint_at, hint_keys) \
	{ ACT_##id, name, keys, help, group, hint, hint_keys, hint_at },
#define VIEW_ACTION(id, name, key, help) { ACT_VIEW_##id, #name, key, help, NULL, NULL, NULL, 0 },
	UI_ACTION_LIST(ACTION, VIEW_ACTION)
#undef ACTION
#undef VIEW_ACTION
};
/* clang-format on */

/* clang-format off */
static const struct {
	const char *name;
	int key;
} key_names[] = {
	{ "Up", UI_KEY_UP },	   { "Down", UI_KEY_DOWN },	    { "Left", UI_KEY_LEFT },
	{ "Right", UI_KEY_RIGHT }, { "PgUp", UI_KEY_PGUP },	    { "PgDn", UI_KEY_PGDN },
	{ "Home", UI_KEY_HOME },   { "End", UI_KEY_END },	    { "Enter", UI_KEY_ENTER },
	{ "Esc", UI_KEY_ESC },	   { "Backspace", UI_KEY_BACKSPACE }, { "Delete", UI_KEY_DELETE },
	{ "Tab", UI_KEY_TAB },	   { "S-Tab", UI_KEY_BTAB },	    { "Space", ' ' },
};
/* clang-format on */
#define N_KEY_NAMES (sizeof key_names / sizeof key_names[0])

size_t ui_actions_hints(char *buf, size_t cap)
{
	size_t len = 0;

	if (cap)
		buf[0] = '\0';
	for (int at = 1; at < ACT_COUNT; at++)
		for (size_t i = 0; i < ACT_COUNT - 1; i++) {
			const struct ui_action_def *d = &ui_actions[i];
			size_t keys = d->hint_keys ? strlen(d->hint_keys) : strcspn(d->keys, " ");
			int n;

			if (!d->hint || d->hint_at != at)
				continue;
			n = snprintf(buf + len, len < cap ? cap - len : 0, "%s%.*s:%s",
				     len ? "  " : "", (int)keys,
				     d->hint_keys ? d->hint_keys : d->keys, d->hint);
			len += n > 0 ? (size_t)n : 0;
		}
	return len;
}

const struct ui_action_def *ui_action_def(enum ui_action a)
{
	if (a <= ACT_NONE || a >= ACT_COUNT)
		return NULL;
	return &ui_actions[a - 1];
}

enum ui_action ui_action_from_name(const char *name)
{
	for (size_t i = 0; i < ACT_COUNT - 1; i++)
		if (strcmp(ui_actions[i].name, name) == 0)
			return ui_actions[i].action;
	return ACT_NONE;
}

/* Decode one UTF-8 character that makes up all of s; -1 when s is not exactly one. */
static int utf8_one(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	int n, cp;

	if (u[0] < 0x80)
		n = 1, cp = u[0];
	else if ((u[0] & 0xe0) == 0xc0)
		n = 2, cp = u[0] & 0x1f;
	else if ((u[0] & 0xf0) == 0xe0)
		n = 3, cp = u[0] & 0x0f;
	else if ((u[0] & 0xf8) == 0xf0)
		n = 4, cp = u[0] & 0x07;
	else
		return -1;
	for (int i = 1; i < n; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return -1;
		cp = cp << 6 | (u[i] & 0x3f);
	}
	return u[n] == '\0' && cp > 0 ? cp : -1;
}

int ui_key_from_name(const char *name)
{
	int cp;

	for (size_t i = 0; i < N_KEY_NAMES; i++)
		if (strcmp(key_names[i].name, name) == 0)
			return key_names[i].key;
	if (name[0] == 'F' && name[1] >= '1' && name[1] <= '9') {
		int n = name[1] - '0';

		if (name[2] >= '0' && name[2] <= '2' && name[3] == '\0' && n == 1)
			return UI_KEY_F1 + 10 + (name[2] - '0') - 1;
		if (name[2] == '\0')
			return UI_KEY_F1 + n - 1;
	}
	if (name[0] == 'C' && name[1] == '-' && name[2] >= 'a' && name[2] <= 'z' && name[3] == '\0')
		return name[2] - 'a' + 1;
	cp = utf8_one(name);
	return cp > 0 ? cp : UI_KEY_NONE;
}

char *ui_key_name(int key, char *buf, size_t cap)
{
	if (cap == 0)
		return buf;
	for (size_t i = 0; i < N_KEY_NAMES; i++)
		if (key_names[i].key == key) {
			snprintf(buf, cap, "%s", key_names[i].name);
			return buf;
		}
	if (key >= UI_KEY_F1 && key <= UI_KEY_F12)
		snprintf(buf, cap, "F%d", key - UI_KEY_F1 + 1);
	else if (key >= 1 && key <= 26)
		snprintf(buf, cap, "C-%c", 'a' + key - 1);
	else if (key > 0x20 && key < 0x7f)
		snprintf(buf, cap, "%c", key);
	else if (key >= 0xa0 && key < 0x110000) {
		char u[4];

		snprintf(buf, cap, "%.*s", (int)text_utf8_encode((uint32_t)key, u), u);
	} else {
		snprintf(buf, cap, "?");
	}
	return buf;
}

enum ui_action ui_action_for_key(int key)
{
	char name[16];

	if (key == UI_KEY_NONE)
		return ACT_NONE;
	ui_key_name(key, name, sizeof name);
	for (size_t i = 0; i < ACT_COUNT - 1; i++) {
		const char *k = ui_actions[i].keys;
		size_t n = strlen(name);

		while (*k) {
			size_t len = strcspn(k, " ");

			if (len == n && strncmp(k, name, n) == 0)
				return ui_actions[i].action;
			k += len;
			k += *k == ' ';
		}
	}
	return ACT_NONE;
}

/* One key name in mdoc: Ic for printable keys, Cm for named keys; escape the backslash-prone
 * characters. */
static int mdoc_key(FILE *f, const char *k, size_t len)
{
	if (len == 1 && (*k == '<' || *k == '>' || *k == '?' || *k == '/'))
		return fprintf(f, "Ic \\&%.*s", (int)len, k) < 0 ? -1 : 0;
	return fprintf(f, "%s %.*s", len == 1 ? "Ic" : "Cm", (int)len, k) < 0 ? -1 : 0;
}

int ui_actions_write_mdoc(FILE *f)
{
	if (fputs(".Sh KEYS\n"
		  "The explorer's keys; the name in parentheses names the action in a\n"
		  ".Fl -headless\n"
		  "script.\n"
		  "Esc, Backspace and\n"
		  ".Ic q\n"
		  "go back from the evidence pane, the kernel pairs of a layer or class, and\n"
		  "the help and prompts.\n",
		  f) < 0)
		return -1;
	for (size_t i = 0; i < ACT_COUNT - 1; i++) {
		const struct ui_action_def *d = &ui_actions[i];
		const char *k = d->keys;
		int first = 1;

		if (d->group &&
		    fprintf(f, "%s.Ss %s\n.Bl -tag -width \"Esc, Backspace\" -compact\n",
			    i ? ".El\n" : "", d->group) < 0)
			return -1;
		if (fputs(".It ", f) < 0)
			return -1;
		while (*k) {
			size_t len = strcspn(k, " ");

			if ((!first && fputs(" , ", f) < 0) || mdoc_key(f, k, len) < 0)
				return -1;
			first = 0;
			k += len;
			k += *k == ' ';
		}
		if (fprintf(f, "\n%c%s (%s).\n", toupper((unsigned char)d->help[0]), d->help + 1,
			    d->name) < 0)
			return -1;
	}
	return fputs(".El\n", f) < 0 ? -1 : 0;
}
