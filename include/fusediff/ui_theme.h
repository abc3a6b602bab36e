/* ui_theme.h — colour by role. Every colour the explorer uses is named by its role (header,
 * selection, better, worse, fused, unmatched, dim, ...); one table maps each role to colours
 * and attributes for the dark and light themes, and to attributes alone for monochrome. */
#ifndef FUSEDIFF_UI_THEME_H
#define FUSEDIFF_UI_THEME_H

enum ui_role {
	ROLE_NORMAL,
	ROLE_HEADER,		 /* the summary lines at the top */
	ROLE_TAB,		 /* view names */
	ROLE_TAB_ACTIVE,	 /* the view shown */
	ROLE_COLUMN,		 /* table column titles */
	ROLE_SORTED,		 /* the title of the sorted column */
	ROLE_SELECTION,		 /* the selected row of the focused table */
	ROLE_SELECTION_INACTIVE, /* the selected row when the evidence pane has the focus */
	ROLE_BETTER,		 /* B faster than A */
	ROLE_WORSE,		 /* B slower than A */
	ROLE_FUSED,		 /* a fusion difference */
	ROLE_UNMATCHED,		 /* a kernel without counterpart that only A runs */
	ROLE_B_ONLY,		 /* a kernel without counterpart that only B runs */
	ROLE_DIM,		 /* secondary text, gaps */
	ROLE_BAR_A,		 /* bars of side A */
	ROLE_BAR_B,		 /* bars of side B */
	ROLE_TITLE,		 /* pane titles */
	ROLE_STATUS,		 /* the status line */
	ROLE_ERROR,		 /* errors and warnings */
	ROLE_COUNT
};

enum ui_theme_id { THEME_DARK, THEME_LIGHT, THEME_MONO, THEME_COUNT };

/* The theme with this name ("dark", "light", "mono"), or -1. */
int ui_theme_from_name(const char *name);
/* The foreground colour (a curses colour, -1: the terminal's) of role in theme. */
int ui_theme_fg(int theme, int role);

#endif
