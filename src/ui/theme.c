/* theme.c — colour roles: one table for every theme (see ui_theme.h). */
#include <string.h>

#include "ui_int.h"

struct role_style {
	short fg, bg; /* curses colours, -1 for the terminal's default */
	attr_t attr;
};

#define D (-1)
/* [theme][role]; THEME_MONO uses only the attributes. */
static const struct role_style styles[THEME_COUNT][ROLE_COUNT] = {
	[THEME_DARK] = {
		[ROLE_NORMAL] = { D, D, 0 },
		[ROLE_HEADER] = { D, D, A_BOLD },
		[ROLE_TAB] = { D, D, 0 },
		[ROLE_TAB_ACTIVE] = { COLOR_BLACK, COLOR_CYAN, A_BOLD },
		[ROLE_COLUMN] = { COLOR_BLACK, COLOR_GREEN, 0 },
		[ROLE_SORTED] = { COLOR_BLACK, COLOR_CYAN, A_BOLD },
		[ROLE_SELECTION] = { COLOR_BLACK, COLOR_CYAN, 0 },
		[ROLE_SELECTION_INACTIVE] = { COLOR_BLACK, COLOR_WHITE, 0 },
		[ROLE_BETTER] = { COLOR_GREEN, D, 0 },
		[ROLE_WORSE] = { COLOR_RED, D, A_BOLD },
		[ROLE_FUSED] = { COLOR_MAGENTA, D, A_BOLD },
		[ROLE_UNMATCHED] = { COLOR_YELLOW, D, 0 },
		[ROLE_B_ONLY] = { COLOR_CYAN, D, 0 },
		[ROLE_DIM] = { D, D, A_DIM },
		[ROLE_BAR_A] = { COLOR_YELLOW, D, 0 }, /* A's colour, as A only's */
		[ROLE_BAR_B] = { COLOR_CYAN, D, 0 },   /* B's, as B only's */
		[ROLE_TITLE] = { COLOR_WHITE, COLOR_BLUE, A_BOLD },
		[ROLE_STATUS] = { COLOR_WHITE, COLOR_BLUE, 0 },
		[ROLE_ERROR] = { COLOR_WHITE, COLOR_RED, A_BOLD },
	},
	[THEME_LIGHT] = {
		[ROLE_NORMAL] = { D, D, 0 },
		[ROLE_HEADER] = { D, D, A_BOLD },
		[ROLE_TAB] = { D, D, 0 },
		[ROLE_TAB_ACTIVE] = { COLOR_WHITE, COLOR_BLUE, A_BOLD },
		[ROLE_COLUMN] = { COLOR_BLACK, COLOR_CYAN, 0 },
		[ROLE_SORTED] = { COLOR_WHITE, COLOR_BLUE, A_BOLD },
		[ROLE_SELECTION] = { COLOR_WHITE, COLOR_BLUE, 0 },
		[ROLE_SELECTION_INACTIVE] = { COLOR_BLACK, COLOR_CYAN, 0 },
		[ROLE_BETTER] = { COLOR_GREEN, D, 0 },
		[ROLE_WORSE] = { COLOR_RED, D, A_BOLD },
		[ROLE_FUSED] = { COLOR_MAGENTA, D, A_BOLD },
		[ROLE_UNMATCHED] = { COLOR_BLUE, D, 0 },
		[ROLE_B_ONLY] = { COLOR_CYAN, D, 0 },
		[ROLE_DIM] = { D, D, A_DIM },
		[ROLE_BAR_A] = { COLOR_BLUE, D, 0 },
		[ROLE_BAR_B] = { COLOR_CYAN, D, 0 },
		[ROLE_TITLE] = { COLOR_WHITE, COLOR_BLUE, A_BOLD },
		[ROLE_STATUS] = { COLOR_WHITE, COLOR_BLACK, 0 },
		[ROLE_ERROR] = { COLOR_WHITE, COLOR_RED, A_BOLD },
	},
	[THEME_MONO] = {
		[ROLE_NORMAL] = { D, D, 0 },
		[ROLE_HEADER] = { D, D, A_BOLD },
		[ROLE_TAB] = { D, D, 0 },
		[ROLE_TAB_ACTIVE] = { D, D, A_REVERSE | A_BOLD },
		[ROLE_COLUMN] = { D, D, A_BOLD | A_UNDERLINE },
		[ROLE_SORTED] = { D, D, A_REVERSE | A_BOLD },
		[ROLE_SELECTION] = { D, D, A_REVERSE },
		[ROLE_SELECTION_INACTIVE] = { D, D, A_UNDERLINE },
		[ROLE_BETTER] = { D, D, 0 },
		[ROLE_WORSE] = { D, D, A_BOLD },
		[ROLE_FUSED] = { D, D, A_BOLD },
		[ROLE_UNMATCHED] = { D, D, A_UNDERLINE },
		[ROLE_B_ONLY] = { D, D, A_UNDERLINE | A_BOLD },
		[ROLE_DIM] = { D, D, A_DIM },
		[ROLE_BAR_A] = { D, D, 0 },
		[ROLE_BAR_B] = { D, D, A_BOLD },
		[ROLE_TITLE] = { D, D, A_REVERSE },
		[ROLE_STATUS] = { D, D, A_REVERSE },
		[ROLE_ERROR] = { D, D, A_REVERSE | A_BOLD },
	},
};
#undef D

static const char *const theme_names[THEME_COUNT] = { "dark", "light", "mono" };

int ui_theme_fg(int theme, int role)
{
	return theme >= 0 && theme < THEME_COUNT && role >= 0 && role < ROLE_COUNT
		       ? styles[theme][role].fg
		       : -1;
}

int ui_theme_from_name(const char *name)
{
	for (int i = 0; i < THEME_COUNT; i++)
		if (strcmp(name, theme_names[i]) == 0)
			return i;
	return -1;
}

void ui_theme_apply(struct ui_screen *s, int theme)
{
	int defaults = 0;

	if (theme != THEME_MONO && has_colors() && start_color() == OK) {
		defaults = use_default_colors() == OK;
	} else {
		theme = THEME_MONO;
	}
	s->theme = theme;
	for (int r = 0; r < ROLE_COUNT; r++) {
		const struct role_style *st = &styles[theme][r];
		short fg = st->fg, bg = st->bg;

		s->attr[r] = st->attr;
		if (theme == THEME_MONO || (fg < 0 && bg < 0))
			continue;
		if (!defaults) { /* no default colours: white on black */
			fg = fg < 0 ? COLOR_WHITE : fg;
			bg = bg < 0 ? COLOR_BLACK : bg;
		}
		if (r + 1 < COLOR_PAIRS && init_pair((short)(r + 1), fg, bg) == OK)
			s->attr[r] |= COLOR_PAIR(r + 1);
	}
}
