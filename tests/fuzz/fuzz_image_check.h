/*
 * fuzz_image_check.h - the image loader's promises, checked on one file,
 * for the fuzz harnesses that write their inputs as image files.
 */
#ifndef CLX_FUZZ_IMAGE_CHECK_H
#define CLX_FUZZ_IMAGE_CHECK_H

/* Opens path and reads its first pages and its last, every way the API
 * allows, stopping the harness (fuzz_fail) where a promise is broken. */
void fuzz_image_file_check(const char *path);

#endif
