#ifndef CURLEW_CNCURSES_SHIM_H
#define CURLEW_CNCURSES_SHIM_H

/* The wide-character API, which ncursesw's pkg-config flags would switch on, is switched on here. */
#define NCURSES_WIDECHAR 1
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif

#include <locale.h>
#include <wchar.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <ncursesw/curses.h>

/* Macros and globals Swift cannot import, as functions. */

static inline WINDOW *curlew_stdscr(void) { return stdscr; }
static inline int curlew_colors(void) { return COLORS; }
static inline void curlew_getmaxyx(int *rows, int *columns) { getmaxyx(stdscr, *rows, *columns); }
static inline int curlew_color_pair(int pair) { return (int)COLOR_PAIR(pair); }
static inline int curlew_attr_bold(void) { return (int)A_BOLD; }
static inline int curlew_attr_reverse(void) { return (int)A_REVERSE; }
static inline int curlew_attr_underline(void) { return (int)A_UNDERLINE; }
static inline int curlew_attr_dim(void) { return (int)A_DIM; }
static inline int curlew_attrset(int attributes) { return attrset(attributes); }
static inline int curlew_mvaddstr(int row, int column, const char *text) { return mvaddstr(row, column, text); }
static inline int curlew_move(int row, int column) { return move(row, column); }
static inline int curlew_clrtoeol(void) { return clrtoeol(); }
static inline int curlew_get_wch(wint_t *character) { return wget_wch(stdscr, character); }
static inline int curlew_getch(void) { return wgetch(stdscr); }
/* Puts a character back, to be read next. */
static inline int curlew_unget_wch(wchar_t character) { return unget_wch(character); }
static inline int curlew_timeout(int milliseconds) { timeout(milliseconds); return 0; }
static inline int curlew_keypad(int on) { return keypad(stdscr, on ? TRUE : FALSE); }
/* Bytes the terminal has sent that nobody read yet (0 when none, or unknown). */
static inline int curlew_input_pending(void) {
    int count = 0;
    if (ioctl(STDIN_FILENO, FIONREAD, &count) != 0 || count < 0) return 0;
    return count;
}

static inline unsigned long curlew_mouse_mask_all(void) { return (unsigned long)(ALL_MOUSE_EVENTS | REPORT_MOUSE_POSITION); }
static inline unsigned long curlew_button1_pressed(void) { return (unsigned long)(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON1_RELEASED); }
static inline unsigned long curlew_wheel_up(void) { return (unsigned long)BUTTON4_PRESSED; }
#ifdef BUTTON5_PRESSED
static inline unsigned long curlew_wheel_down(void) { return (unsigned long)BUTTON5_PRESSED; }
#else
static inline unsigned long curlew_wheel_down(void) { return 0; }
#endif
static inline unsigned long curlew_mousemask(unsigned long mask) { return (unsigned long)mousemask((mmask_t)mask, NULL); }

/* Reads a mouse event: returns 0 and fills row, column and buttons, or -1. */
static inline int curlew_getmouse(int *row, int *column, unsigned long *buttons) {
    MEVENT event;
    if (getmouse(&event) != OK) return -1;
    *row = event.y;
    *column = event.x;
    *buttons = (unsigned long)event.bstate;
    return 0;
}

#endif
