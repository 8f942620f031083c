/*
 * stb_check.h - what stb_image 2.27 does not check in a file, checked
 * before it decodes one (internal; src/image/stb_check.c).
 *
 * Each function reads the file from its start and returns why the file is
 * refused (for the message), or NULL: the file is fine, or stb_image will
 * refuse it by itself.
 */
#ifndef CLX_STB_CHECK_H
#define CLX_STB_CHECK_H

#include <stdio.h>

const char *jpeg_check(FILE *f);
const char *bmp_check(FILE *f);

#endif
